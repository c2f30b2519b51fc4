// Webhook test fixtures: a local receiver that records what it is sent and answers as told,
// team members of any role, and extra API keys (storefront, read-only).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.ts';
import { newId } from '../../src/platform/ids.ts';
import { users } from '../../src/accounts/schema.ts';
import { openSession } from '../../src/accounts/sessions.ts';
import { insertApiKey } from '../../src/accounts/api-keys.ts';
import type { Role } from '../../src/accounts/index.ts';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  url: string;
}

/** What the receiver does with a request: answer a status (and text), or hang without answering. */
export type Behaviour = { status: number; body?: string } | 'hang';

export class Receiver {
  readonly got: Received[] = [];
  behaviour: Behaviour | ((r: Received) => Behaviour) = { status: 200, body: 'ok' };
  #server: http.Server;
  #waiters: (() => void)[] = [];

  private constructor(server: http.Server) {
    this.#server = server;
  }

  static async start(host = '127.0.0.1'): Promise<Receiver> {
    const server = http.createServer();
    const r = new Receiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), url: req.url ?? '' };
        r.got.push(rec);
        for (const w of r.#waiters.splice(0)) w();
        const b = typeof r.behaviour === 'function' ? r.behaviour(rec) : r.behaviour;
        if (b === 'hang') return;
        res.writeHead(b.status, { 'content-type': 'text/plain' }).end(b.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return r;
  }

  get url(): string {
    const a = this.#server.address() as AddressInfo;
    return `http://${a.address}:${a.port}/hook`;
  }

  /** Resolves once `n` requests have arrived in all. */
  async waitFor(n: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.got.length < n) {
      if (Date.now() > deadline) throw new Error(`receiver got ${this.got.length} of ${n} requests`);
      await new Promise<void>((resolve) => { this.#waiters.push(resolve); setTimeout(resolve, 50); });
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A signed-in team member of `role` in the merchant: their access token. */
export async function memberToken(t: TestApp, merchantId: string, role: Role): Promise<string> {
  const now = t.platform.clock.now();
  const userId = newId('usr', now);
  const sessionId = await t.platform.db.transaction(async (tx) => {
    await tx.insert(users).values({ id: userId, merchantId, email: `${role}-${userId}@example.com`, passwordHash: 'x', role, createdAt: now });
    return (await openSession(tx, userId, merchantId, now)).sessionId;
  });
  return (await t.services.accounts.tokens.issue({ userId, merchantId, sessionId, role }, now)).token;
}

/** An extra API key of the merchant (a storefront's, or read-only). */
export async function extraKey(t: TestApp, merchantId: string, opts: { livemode?: boolean; storeId?: string; access?: 'full' | 'read' }): Promise<string> {
  const { secret } = await insertApiKey(t.platform.db.orm, {
    merchantId, livemode: opts.livemode ?? false, storeId: opts.storeId ?? null, label: 'extra',
    access: opts.access ?? 'full', createdBy: null, at: t.platform.clock.now(),
  });
  return secret;
}
