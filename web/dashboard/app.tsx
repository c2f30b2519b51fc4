// The app shell: signed out, the sign-in and sign-up pages; signed in, the navigation of the
// member's role, the live/test switch with the test banner, and the page of the path, its code
// loaded when first opened. A page the role may not open says so instead of loading.
import type { FunctionComponent } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { AppContext, type Ctx } from './lib/context.ts';
import { Live } from './lib/live.ts';
import { PAGES, PUBLIC_PATHS, matchPage, mayOpen, type PageName } from './lib/paths.ts';
import { href, isTestMode, navigate, useLocation } from './lib/router.ts';
import type { Session, SessionState } from './lib/session.ts';
import { Loading, errorText } from './lib/ui.tsx';
import { FirstKeys, PublicPages } from './public.tsx';

type PageModule = { default: FunctionComponent<{ id?: string }> };
const LOADERS: Record<PageName, () => Promise<PageModule>> = {
  overview: () => import('./pages/overview.tsx'),
  payments: () => import('./pages/payments.tsx'),
  payment: () => import('./pages/payment.tsx'),
  developers: () => import('./pages/developers.tsx'),
  money: () => import('./pages/money.tsx'),
  links: () => import('./pages/links.tsx'),
  customers: () => import('./pages/customers.tsx'),
  stores: () => import('./pages/stores.tsx'),
  team: () => import('./pages/team.tsx'),
  settings: () => import('./pages/settings.tsx'),
  audit: () => import('./pages/audit.tsx'),
  referrals: () => import('./pages/referrals.tsx'),
  notifications: () => import('./pages/notifications.tsx'),
  support: () => import('./pages/support.tsx'),
  account: () => import('./pages/account.tsx'),
};
/** Pages whose data has a mode (spec 1 Modes: `?mode=test`); the others show no switch. */
const MODE_PAGES: ReadonlySet<PageName> = new Set(['overview', 'payments', 'developers', 'money', 'links', 'customers', 'notifications']);
const loaded = new Map<PageName, FunctionComponent<{ id?: string }>>();

function LazyPage({ page, id }: { page: PageName; id?: string }) {
  const [Comp, setComp] = useState(() => loaded.get(page));
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (loaded.has(page)) { setComp(() => loaded.get(page)); return; }
    setComp(undefined);
    LOADERS[page]().then((m) => { loaded.set(page, m.default); setComp(() => m.default); }, setError);
  }, [page]);
  if (error) return <p class="error" role="alert">This page could not be loaded ({errorText(error)}). Reload to try again.</p>;
  return Comp ? <Comp id={id} /> : <Loading what="Loading the page" />;
}

function ModeSwitch({ test }: { test: boolean }) {
  const set = (t: boolean) => {
    const u = new URL(location.href);
    if (t) u.searchParams.set('mode', 'test'); else u.searchParams.delete('mode');
    navigate(u.pathname + u.search, { keepMode: false });
  };
  return (
    <div class="mode-switch" role="group" aria-label="Data mode">
      <button type="button" aria-pressed={!test} onClick={() => set(false)}>Live</button>
      <button type="button" aria-pressed={test} onClick={() => set(true)}>Test</button>
    </div>
  );
}

function Shell({ ctx, page, id }: { ctx: Ctx; page: PageName | null; id?: string }) {
  const [menu, setMenu] = useState(false);
  const [up, setUp] = useState(ctx.live.up);
  const main = useRef<HTMLElement>(null);
  useEffect(() => ctx.live.onStatus(setUp), [ctx.live]);
  // A new page: the focus goes to its heading area, and its title to the tab.
  useEffect(() => {
    document.title = `${page ? PAGES[page].title : 'Not found'} · ${ctx.merchant.name ?? 'Dashboard'}`;
    main.current?.focus();
    setMenu(false);
  }, [page, id]);
  const allowed = page !== null && mayOpen(page, ctx.role);
  return (
    <AppContext.Provider value={ctx}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <button type="button" class="menu-btn" aria-expanded={menu} aria-controls="nav" onClick={() => setMenu(!menu)}>Menu</button>
        <strong class="brand">{ctx.merchant.name}</strong>
        {page && MODE_PAGES.has(page) && <ModeSwitch test={ctx.test} />}
        <span class={`live-dot ${up ? 'up' : ''}`} role="status" title={up ? 'Live updates on' : 'Live updates off'}>{up ? 'Live updates on' : 'Connecting…'}</span>
        <a href={href('/account')} class="who">{ctx.user.email} ({ctx.role})</a>
        <button type="button" class="ghost" onClick={() => { void ctx.session.signOut('You signed out.'); }}>Sign out</button>
      </header>
      {ctx.test && page && MODE_PAGES.has(page) && <div class="test-banner" role="note">Test mode: you are looking at test data. Test payments move no coins.</div>}
      <div class="layout">
        <nav id="nav" class={`side ${menu ? 'open' : ''}`} aria-label="Main">
          <ul>
            {(Object.keys(PAGES) as PageName[]).filter((p) => PAGES[p].nav && mayOpen(p, ctx.role)).map((p) => (
              <li key={p}><a href={href(PAGES[p].path)} aria-current={page === p || (p === 'payments' && page === 'payment') ? 'page' : undefined}>{PAGES[p].title}</a></li>
            ))}
          </ul>
        </nav>
        <main id="main" ref={main} tabIndex={-1}>
          {page === null ? <p role="alert">There is no page here. <a href={href('/')}>Go to the overview</a>.</p>
            : !allowed ? <div class="card"><h1>{PAGES[page].title}</h1><p role="alert">Your role ({ctx.role}) cannot open this page. Ask an owner if you need it.</p></div>
            : <LazyPage page={page} id={id} />}
        </main>
      </div>
    </AppContext.Provider>
  );
}

export function App({ session }: { session: Session }) {
  const [state, setState] = useState<SessionState>(session.state);
  const [, rerender] = useState(0);
  const live = useMemo(() => new Live(session), [session]);
  const loc = useLocation();
  useEffect(() => session.subscribe(setState), [session]);
  if (state.status === 'loading') return <Loading what="Signing you in" />;
  if (state.status === 'signed-out') return <PublicPages session={session} reason={state.reason} />;
  if (session.firstKeys) return <main class="public"><FirstKeys keys={session.firstKeys} onDone={() => { session.firstKeys = null; rerender((n) => n + 1); }} /></main>;
  if ((PUBLIC_PATHS as readonly string[]).includes(loc.pathname)) { navigate('/', { replace: true }); return null; }
  const match = matchPage(loc.pathname);
  const test = isTestMode();
  const ctx: Ctx = { session, api: session.api, live, role: state.role, merchant: state.merchant, user: state.user, test, mode: test ? 'mode=test' : '' };
  return <Shell ctx={ctx} page={match?.page ?? null} id={match?.id} />;
}
