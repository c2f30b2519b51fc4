// The dashboard calls of the CLI (webhook deliveries are a dashboard resource: an API key cannot
// read them). Signs in with an email and password, or uses an access token given as is.
import { networkReason } from '../../sdk/src/index.ts';

export interface DashboardCredentials {
  apiUrl: string;
  accessToken?: string;
  email?: string;
  password?: string;
}

export class CliError extends Error {}

/** The message of a request that got no answer at all (service stopped, wrong host or port). */
export const cannotReach = (base: string, reason: string): string => `cannot reach ${base.replace(/\/+$/, '')}: ${reason}`;

async function call(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    throw new CliError(cannotReach(new URL(url).origin, networkReason(err)));
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new CliError(`${res.status} ${typeof body.error === 'string' ? body.error : res.statusText}`);
  return body;
}

export class Dashboard {
  readonly #base: string;
  readonly #creds: DashboardCredentials;
  #token: string | null;

  constructor(creds: DashboardCredentials) {
    this.#base = creds.apiUrl.replace(/\/$/, '');
    this.#creds = creds;
    this.#token = creds.accessToken ?? null;
  }

  async #auth(): Promise<Record<string, string>> {
    if (!this.#token) {
      const { email, password } = this.#creds;
      if (!email || !password) throw new CliError('give --access-token, or --email and --password (or GATEWAY_ACCESS_TOKEN, GATEWAY_EMAIL, GATEWAY_PASSWORD)');
      const signedIn = await call(`${this.#base}/merchant/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      this.#token = String(signedIn.access_token);
    }
    return { authorization: `Bearer ${this.#token}` };
  }

  async deliveries(q: { live: boolean; status?: string; limit?: number }): Promise<Record<string, unknown>[]> {
    const params = new URLSearchParams();
    if (!q.live) params.set('mode', 'test');
    if (q.status) params.set('status', q.status);
    if (q.limit) params.set('limit', String(q.limit));
    const body = await call(`${this.#base}/merchant/webhooks/deliveries?${params}`, { headers: await this.#auth() });
    return body.deliveries as Record<string, unknown>[];
  }

  async redeliver(id: string): Promise<string> {
    const body = await call(`${this.#base}/merchant/webhooks/deliveries/${encodeURIComponent(id)}/redeliver`, { method: 'POST', headers: await this.#auth() });
    return String(body.message);
  }
}
