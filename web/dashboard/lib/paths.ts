// The dashboard's pages: their paths, names and the roles that may open them (spec 5 "Roles and
// permissions"). Pure data, read by the app (navigation, route guard) and by the server, which
// answers the app's HTML on exactly these paths (any other path keeps its 404).
export type Role = 'owner' | 'developer' | 'finance' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'developer', 'finance', 'viewer'];
const ANY = ROLES;

export interface PageDef {
  /** Path pattern: `:id` is one path segment. */
  path: string;
  title: string;
  roles: readonly Role[];
  /** Shown in the navigation (a payment's page is reached from the list). */
  nav: boolean;
}

export const PAGES = {
  overview: { path: '/', title: 'Overview', roles: ANY, nav: true },
  payments: { path: '/payments', title: 'Payments', roles: ANY, nav: true },
  payment: { path: '/payments/:id', title: 'Payment', roles: ANY, nav: false },
  developers: { path: '/developers', title: 'Developers', roles: ANY, nav: true },
  money: { path: '/money', title: 'Money', roles: ANY, nav: true },
  links: { path: '/links', title: 'Payment links', roles: ANY, nav: true },
  customers: { path: '/customers', title: 'Customers', roles: ANY, nav: true },
  stores: { path: '/stores', title: 'Stores', roles: ANY, nav: true },
  team: { path: '/team', title: 'Team', roles: ['owner'], nav: true },
  settings: { path: '/settings', title: 'Settings', roles: ['owner'], nav: true },
  audit: { path: '/audit', title: 'Audit log', roles: ['owner'], nav: true },
  referrals: { path: '/referral-program', title: 'Referral program', roles: ['owner', 'finance'], nav: true },
  notifications: { path: '/notifications', title: 'Notifications', roles: ANY, nav: true },
  support: { path: '/support', title: 'Support', roles: ANY, nav: true },
  account: { path: '/account', title: 'Your account', roles: ANY, nav: false },
} as const satisfies Record<string, PageDef>;

export type PageName = keyof typeof PAGES;

/**
 * Pages of a signed-out visitor. `/signup?ref=<code>` is the referral link; `/invitations/accept#token=`
 * the invitation's `accept_url` (CONTRACT.md "Invitations"), `/invite?token=` the same page.
 */
export const PUBLIC_PATHS = ['/signin', '/signup', '/invite', '/invitations/accept'] as const;
/** The page accepting an invitation: at either path, its token in the fragment (the API's link) or the query. */
export const INVITE_PATHS: readonly string[] = ['/invite', '/invitations/accept'];

/** Every path the server answers with the app (Fastify patterns). */
export const APP_PATHS: readonly string[] = [...Object.values(PAGES).map((p) => p.path), ...PUBLIC_PATHS];

export const mayOpen = (page: PageName, role: Role): boolean => (PAGES[page].roles as readonly Role[]).includes(role);

/** The page a path names, with its `:id`; null for none. */
export function matchPage(pathname: string): { page: PageName; id?: string } | null {
  const parts = pathname.split('/').filter(Boolean);
  for (const [name, def] of Object.entries(PAGES) as [PageName, PageDef][]) {
    const pat = def.path.split('/').filter(Boolean);
    if (pat.length !== parts.length) continue;
    let id: string | undefined;
    if (pat.every((seg, i) => (seg === ':id' ? ((id = decodeURIComponent(parts[i])), true) : seg === parts[i]))) return { page: name, id };
  }
  return null;
}
