// The signed-in team member (spec 4.4 Session, 5 "Dashboard access tokens"): the access token lives
// in memory only; the httpOnly refresh cookie (path /merchant/auth) brings a new one a minute before
// it expires and after a reload, one tab at a time. Sign-out, a password change or a socket
// `auth:error` end the session with the reason shown on the sign-in page; `onEnd` hears of it first
// (lib/drafts.ts keeps what was being typed when signing in again mends it).
import { Api, ApiError, type Json } from './api.ts';
import type { Role } from './paths.ts';

export interface SignedIn {
  token: string;
  expiresAt: number;
  role: Role;
  merchant: Json;
  user: Json;
}

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; reason?: string }
  | ({ status: 'signed-in' } & SignedIn);

/** Words for the socket's auth:error codes (spec 4.5, 5). */
export const END_REASONS: Record<string, string> = {
  token_expired: 'Your session expired. Sign in again.',
  session_revoked: 'You were signed out (the session was ended).',
  role_changed: 'Your role was changed. Sign in again to continue with your new role.',
  removed: 'You were removed from this account.',
  suspended: 'This merchant account is suspended.',
  password_changed: 'Password changed. Sign in again with the new password.',
};

/** Ends that signing in again mends: what the member was typing is kept for them (lib/drafts.ts). */
const RESUMABLE: ReadonlySet<string> = new Set(['token_expired', 'session_revoked', 'role_changed', 'password_changed']);

const REFRESH_BEFORE_MS = 60_000;

/**
 * The refresh cookie works once (a token presented again ends the whole session) and every tab of
 * the browser shares it, so tabs exchange it one at a time: tabs refreshing together (a browser
 * restoring them, a laptop waking up) would otherwise send the same token twice and be signed out.
 * The lock is held until the answer, whose cookie the browser has stored by then. Without Web Locks
 * (a page served over plain HTTP from another host) each tab goes alone, as before.
 */
const REFRESH_LOCK = 'gateway-dashboard-refresh';
/**
 * An exchange takes milliseconds: a tab that waits longer than this for another's (one stalled on
 * the network, say) goes ahead alone rather than staying at "Signing you in" for as long.
 */
const LOCK_WAIT_MS = 5_000;
function oneTabAtATime(exchange: () => Promise<Response>): Promise<Response> {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  if (!locks) return exchange();
  // Whichever comes first, the turn or the end of the wait, starts the one exchange; a turn
  // granted after that is handed straight back. Timed here, not by the lock request's own signal,
  // so the wait is bounded whatever the lock manager does.
  let started: Promise<Response> | null = null;
  const once = () => (started ??= exchange());
  return new Promise<Response>((resolve, reject) => {
    const timer = setTimeout(() => once().then(resolve, reject), LOCK_WAIT_MS);
    locks.request(REFRESH_LOCK, () => {
      if (started) return undefined;
      clearTimeout(timer);
      const mine = once();
      mine.then(resolve, reject);
      // the turn is held until the answer, whose cookie the browser has stored by then
      return mine.then(() => undefined, () => undefined);
    }).catch(() => { clearTimeout(timer); once().then(resolve, reject); });
  });
}

export class Session {
  state: SessionState = { status: 'loading' };
  readonly api: Api;
  readonly #listeners = new Set<(s: SessionState) => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #refreshing: Promise<string | null> | null = null;
  /** The two keys of a sign-up, shown once before the app opens. */
  firstKeys: Json[] | null = null;
  /** Told of every new token (the socket sends `auth:refresh`). */
  onToken: (token: string) => void = () => {};
  /**
   * Told as a signed-in session ends, before the sign-in page replaces the app, who was signed in
   * and whether signing in again mends it (expired, revoked, role or password changed).
   */
  onEnd: (was: SignedIn, resumable: boolean) => void = () => {};

  constructor() {
    this.api = new Api({ token: () => (this.state.status === 'signed-in' ? this.state.token : null), refresh: () => this.refresh() });
  }

  /**
   * Tells `fn` the state at once, then every change. At once, because a component subscribes in an
   * effect, a frame after it rendered (later on a busy machine or in a hidden tab), and the refresh
   * on load can answer before that: a change told to no one left the page on "Signing you in…".
   */
  subscribe(fn: (s: SessionState) => void): () => void {
    this.#listeners.add(fn);
    fn(this.state);
    return () => this.#listeners.delete(fn);
  }

  #set(s: SessionState): void {
    this.state = s;
    for (const fn of this.#listeners) fn(s);
  }

  /** After sign-in, sign-up, invitation or refresh: the token, then who we are. */
  async #begin(answer: Json): Promise<void> {
    const expiresAt = Date.parse(answer.expires_at);
    const token = answer.access_token as string;
    const me = await new Api({ token: () => token, refresh: async () => null }).get('/merchant/me');
    this.#set({ status: 'signed-in', token, expiresAt, role: answer.role, merchant: me.merchant, user: me.user });
    this.#schedule();
    this.onToken(token);
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.state.status !== 'signed-in') return;
    const wait = Math.max(5_000, this.state.expiresAt - Date.now() - REFRESH_BEFORE_MS);
    this.#timer = setTimeout(() => { void this.refresh(); }, wait);
  }

  /** Exchanges the cookie for a new token (one at a time); null and signed out when it fails. */
  refresh(): Promise<string | null> {
    this.#refreshing ??= (async () => {
      try {
        const r = await oneTabAtATime(() => fetch('/merchant/auth/refresh', { method: 'POST', credentials: 'same-origin' }));
        if (!r.ok) {
          const j = await r.json().catch(() => ({}));
          const suspended = j.error === 'merchant account is suspended';
          this.#end(this.state.status === 'signed-in' ? (suspended ? END_REASONS.suspended : END_REASONS.token_expired) : undefined, !suspended);
          return null;
        }
        await this.#begin(await r.json());
        return this.state.status === 'signed-in' ? this.state.token : null;
      } catch {
        return null;
      } finally {
        this.#refreshing = null;
      }
    })();
    return this.#refreshing;
  }

  /** On page load: signed in again from the cookie, or the sign-in page. */
  async resume(): Promise<void> {
    if (!(await this.refresh())) this.#set({ status: 'signed-out' });
  }

  async #post(url: string, body: unknown): Promise<void> {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
    const j = await r.json().catch(() => ({}));
    if (!r.ok) throw new ApiError(typeof j.error === 'string' ? j.error : `request failed (${r.status})`, r.status);
    await this.#begin(j);
  }

  signIn(email: string, password: string): Promise<void> { return this.#post('/merchant/login', { email, password }); }
  /** Sign-up answers the first two API keys once: returned for the welcome page. */
  async signUp(body: Json): Promise<Json[]> {
    const r = await fetch('/merchant/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
    const j = await r.json().catch(() => ({}));
    if (!r.ok) throw new ApiError(typeof j.error === 'string' ? j.error : `request failed (${r.status})`, r.status);
    this.firstKeys = j.api_keys as Json[];
    await this.#begin(j);
    return this.firstKeys;
  }
  acceptInvitation(token: string, password: string): Promise<void> { return this.#post('/merchant/invitations/accept', { token, password }); }

  #end(reason?: string, resumable = false): void {
    clearTimeout(this.#timer);
    if (this.state.status === 'signed-in') this.onEnd(this.state, resumable);
    this.#set({ status: 'signed-out', reason });
  }

  /** Ends the session on the server (token and cookie) and here. */
  async signOut(reason?: string): Promise<void> {
    const token = this.state.status === 'signed-in' ? this.state.token : null;
    this.#end(reason);
    await fetch('/merchant/auth/logout', { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {}, credentials: 'same-origin' }).catch(() => undefined);
  }

  /** Ended by the server (socket auth:error): nothing left to revoke. */
  ended(code: string): void {
    this.#end(END_REASONS[code] ?? `You were signed out (${code}).`, RESUMABLE.has(code));
  }

  /** Reads the merchant again (after settings or live mode change). */
  setMerchant(merchant: Json): void {
    if (this.state.status === 'signed-in') this.#set({ ...this.state, merchant });
  }
}
