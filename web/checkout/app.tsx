// The hosted checkout page (spec 1 "Surfaces"): who is paid and for what, how to pay without
// mistakes, every state said plainly, in the payer's language.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { AnnounceContext, WordsContext, useT } from './fields.tsx';
import { formats, loadMessages, rememberLanguage, fill, type Messages } from './lib/i18n.ts';
import { follow, request, RequestError, type Api, type Following } from './lib/live.ts';
import { screenOf, type Payment } from './lib/payment.ts';
import type { Language } from './lib/languages.ts';
import type { WalletNetworks } from './lib/wallet-uri.ts';
import { ChooseCoin, ClosedPanel, ConfirmedPanel, DetectingPanel, LanguageSwitch, Notices, PayPanel, SimulatePanel, Summary, payeeOf } from './views.tsx';

export interface AppProps {
  api: Api;
  /** The server's token contracts and EVM chain ids (meta tags), for the wallet link. */
  networks: WalletNetworks;
  lang: Language;
  messages: Messages;
  /** The first GET's answer or its failure. */
  first: Payment | RequestError;
}

/** A socket event may come before the names are known in its process: keep the ones we have. */
const withNames = (next: Payment, prev: Payment | null): Payment =>
  ({ ...next, merchant_name: next.merchant_name ?? prev?.merchant_name, store_name: next.store_name ?? prev?.store_name });

export function App(props: AppProps) {
  const [lang, setLang] = useState(props.lang);
  const [messages, setMessages] = useState(props.messages);
  const [payment, setPayment] = useState<Payment | null>(props.first instanceof RequestError ? null : props.first);
  const [error, setError] = useState<RequestError | null>(props.first instanceof RequestError ? props.first : null);
  const [busy, setBusy] = useState<string | null>(null);
  const [chosenHere, setChosenHere] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const latest = useRef(payment);
  latest.current = payment;

  const show = useCallback((p: Payment) => {
    setPayment((prev) => withNames(p, prev));
    setError(null);
  }, []);
  const fail = useCallback((e: unknown) => setError(e instanceof RequestError ? e : new RequestError(String(e), 0)), []);

  // An unknown token stays unknown (a payment never goes away): nothing to follow.
  const unknown = props.first instanceof RequestError && props.first.status === 404;
  const following = useRef<Following | null>(null);
  useEffect(() => {
    if (unknown) return undefined;
    following.current = follow(props.api, () => latest.current, show, fail);
    return following.current.stop;
  }, []);
  // The answer of the page's own request: a poll under way read the payment before it, and must not
  // be shown over it (the coin list coming back after the coin was chosen).
  const gave = (p: Payment) => (following.current ? following.current.gave(p) : show(p));

  const words = useMemo(() => ({ m: messages, f: formats(lang, messages) }), [messages, lang]);
  useEffect(() => {
    document.documentElement.lang = lang;
    const payee = payeeOf(payment);
    document.title = payee ? fill(messages.pageTitle, { name: payee }) : messages.pageTitleNoName;
  }, [lang, messages, payment?.merchant_name, payment?.store_name]);

  const switchLanguage = async (next: Language) => {
    const m = await loadMessages(next);
    rememberLanguage(next);
    setMessages(m);
    setLang(next);
  };
  const choose = async (token: string) => {
    setBusy(token);
    // The socket may show the address before this answer: the panel takes the focus either way.
    setChosenHere(true);
    try {
      gave(await request('POST', `${props.api.url}/token`, { token }));
    } catch (e) {
      setChosenHere(false);
      fail(e);
    } finally {
      setBusy(null);
    }
  };
  const simulate = async (outcome: string) => {
    try {
      gave(await request('POST', `${props.api.url}/simulate`, { outcome }));
    } catch (e) {
      fail(e);
    }
  };

  return (
    <WordsContext.Provider value={words}>
      <AnnounceContext.Provider value={setAnnouncement}>
        <Page p={payment} error={error} busy={busy} chosenHere={chosenHere} api={props.api} networks={props.networks} onChoose={choose} onSimulate={simulate} />
        <footer class="footer">
          <LanguageSwitch lang={lang} onChange={switchLanguage} />
        </footer>
        <p class="sr-only" aria-live="polite" id="announce">{announcement}</p>
      </AnnounceContext.Provider>
    </WordsContext.Provider>
  );
}

interface PageProps {
  p: Payment | null;
  error: RequestError | null;
  busy: string | null;
  chosenHere: boolean;
  api: Api;
  networks: WalletNetworks;
  onChoose: (token: string) => void;
  onSimulate: (outcome: string) => void;
}

/**
 * Why the payment is not shown: an unknown token in the payer's language; another 4xx in the API's
 * words, meant for whoever asked (e.g. a rate limit); a 5xx or no answer at all (status 0) in the
 * payer's language, as the page keeps trying.
 */
function firstLoadError(error: RequestError, t: (key: 'notFound' | 'loadFailed') => string): string {
  if (error.status === 404) return t('notFound');
  return error.status >= 400 && error.status < 500 ? error.message : t('loadFailed');
}

function Page({ p, error, busy, chosenHere, api, networks, onChoose, onSimulate }: PageProps) {
  const { t } = useT();
  if (!p) {
    return (
      <main class="page" id="app">
        <section class="card">
          <h1>{t('payment')}</h1>
          <p id="status" class="status" role="status" aria-live="polite" data-tone={error ? 'bad' : ''}>
            {error ? firstLoadError(error, t) : t('loading')}
          </p>
        </section>
      </main>
    );
  }
  const s = screenOf(p);
  const status = s.phase === 'choose' ? t('statusChoose') : t(`status_${p.status}`);
  const tone = p.status === 'confirmed' ? 'ok' : s.phase === 'closed' ? 'bad' : p.status === 'partially_paid' ? 'warn' : '';
  return (
    <main class="page" id="app">
      {!p.livemode && <p id="test-banner" class="banner">{t(s.canSimulate ? 'testBannerSimulate' : 'testBanner')}</p>}
      <div class="layout">
        <Summary p={p} />
        <section class="card main" aria-labelledby="status">
          <p id="status" class="status" role="status" aria-live="polite" data-tone={tone} data-status={p.status}>{status}</p>
          {/* The API's words; a request that never reached it (status 0) in the payer's language. */}
          {error && <p id="error" class="error" role="alert">{error.status === 0 ? t('loadFailed') : error.message}</p>}
          <Notices p={p} s={s} />
          {s.phase === 'choose' && <ChooseCoin p={p} onChoose={onChoose} busy={busy} />}
          {s.phase === 'pay' && <PayPanel p={p} s={s} qrUrl={`${api.url}/qr.svg`} networks={networks} focus={chosenHere} />}
          {s.phase === 'detecting' && <DetectingPanel p={p} />}
          {s.phase === 'confirmed' && <ConfirmedPanel p={p} />}
          {s.phase === 'closed' && <ClosedPanel p={p} s={s} />}
        </section>
      </div>
      {s.canSimulate && <SimulatePanel onRun={onSimulate} />}
    </main>
  );
}
