// The dashboard's calls to /merchant (spec 4.4): the access token in the Authorization header
// (never in a URL), one refresh by cookie and a retry when a token has just expired, and every
// error answer turned into an ApiError carrying the spec's message, shown beside its cause. Each
// answer's Date header tells the gateway's clock (the figures' day is the gateway's).
import { heardServerTime } from './server-clock.ts';

export class ApiError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API answers of many shapes

export interface TokenSource {
  token(): string | null;
  /** A new access token from the refresh cookie; null when the session is over. */
  refresh(): Promise<string | null>;
}

const EXPIRED = 'invalid or expired token';

export class Api {
  readonly #tokens: TokenSource;
  constructor(tokens: TokenSource) {
    this.#tokens = tokens;
  }

  async #send(method: string, url: string, body: unknown, token: string | null): Promise<Response> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    heardServerTime(res.headers.get('date'));
    return res;
  }

  /** The raw answer (for CSV), refreshed and retried once on an expired token. */
  async raw(method: string, url: string, body?: unknown): Promise<Response> {
    let res = await this.#send(method, url, body, this.#tokens.token());
    if (res.status === 401) {
      const msg = await res.clone().json().then((j: Json) => j.error, () => '');
      if (msg === EXPIRED) {
        const fresh = await this.#tokens.refresh();
        if (fresh) res = await this.#send(method, url, body, fresh);
      }
    }
    if (!res.ok) {
      const j = await res.json().catch(() => ({}));
      throw new ApiError(typeof j.error === 'string' ? j.error : `request failed (${res.status})`, res.status);
    }
    return res;
  }

  async call<T = Json>(method: string, url: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, url, body);
    return (res.status === 204 ? {} : await res.json()) as T;
  }

  get<T = Json>(url: string): Promise<T> { return this.call<T>('GET', url); }
  post<T = Json>(url: string, body: unknown = {}): Promise<T> { return this.call<T>('POST', url, body); }
  patch<T = Json>(url: string, body: unknown): Promise<T> { return this.call<T>('PATCH', url, body); }
  put<T = Json>(url: string, body: unknown): Promise<T> { return this.call<T>('PUT', url, body); }
  del<T = Json>(url: string): Promise<T> { return this.call<T>('DELETE', url); }
}

/** A query string of the values given (empty ones left out), with its `?`. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '' && v !== false) u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}
