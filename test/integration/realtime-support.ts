// Shared pieces of the realtime tests: an app listening on a loopback port with sockets and the
// outbox running, socket.io clients, a fake payer view, and team members of any role.
import type { AddressInfo } from 'node:net';
import { io as ioClient, type Socket } from 'socket.io-client';
import type { Database } from '../../src/platform/db/index.ts';
import { appendEvent } from '../../src/events/index.ts';
import { newId } from '../../src/platform/ids.ts';
import { users, sessions } from '../../src/accounts/index.ts';
import type { PaymentJson } from '../../src/realtime/index.ts';
import { startTestApp, type TestApp, type TestAppOptions } from '../harness/app.ts';

export interface SocketApp extends TestApp {
  url: string;
  /** Payer views by checkout token, served to the sockets in place of the payments room. */
  payments: Map<string, PaymentJson>;
}

/** `dispatch: false` leaves this process's outbox dispatcher off (another process dispatches). */
export async function startSocketApp(db: Database, opts: TestAppOptions & { dispatch?: boolean } = {}): Promise<SocketApp> {
  const t = await startTestApp(db, opts);
  const payments = new Map<string, PaymentJson>();
  t.services.realtime.use({ checkout: { payerViewByToken: async (tok) => payments.get(tok) ?? null } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  await t.services.realtime.start();
  if (opts.dispatch !== false) t.platform.outbox.start();
  const { port } = t.app.server.address() as AddressInfo;
  return {
    ...t, payments, url: `http://127.0.0.1:${port}`,
    close: async () => {
      await t.services.realtime.stop();
      await t.close();
    },
  };
}

const sockets: Socket[] = [];
export function connect(url: string, opts: Parameters<typeof ioClient>[1] = {}): Socket {
  const s = ioClient(url, { transports: ['websocket'], reconnectionDelay: 100, reconnectionDelayMax: 200, forceNew: true, ...opts });
  sockets.push(s);
  return s;
}
export function closeSockets(): void {
  for (const s of sockets.splice(0)) s.close();
}

/** The next `event` on the socket (rejects after ms). */
export function next<T = unknown>(s: Socket, event: string, ms = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    s.once(event, (arg: T) => { clearTimeout(t); resolve(arg); });
  });
}

/** Collects every `event` the socket receives. */
export function collect<T = unknown>(s: Socket, event: string): T[] {
  const got: T[] = [];
  s.on(event, (arg: T) => got.push(arg));
  return got;
}

export const ask = <T = unknown>(s: Socket, event: string, ...args: unknown[]): Promise<T> =>
  s.timeout(5000).emitWithAck(event, ...args) as Promise<T>;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until check() holds (polling), or throws. */
export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

export function fakePayment(merchantId: string, over: Record<string, unknown> = {}): PaymentJson {
  return {
    id: newId('pay'), merchant_id: merchantId, order_id: `order-${Math.random()}`, status: 'pending', livemode: false,
    token: 'BTC', chain: 'bitcoin', deposit_address: 'bc1qexample', crypto_amount: '0.001', received_amount: '0',
    amount_due_usd: '60', usd_amount: '60', metadata: { customer: 'c-1' }, customer_email: 'payer@example.com',
    webhook_url: 'https://shop.example/hook', checkout_token: `ct_${Math.random().toString(36).slice(2)}`,
    checkout_url: 'http://x/pay/t', qr_payload: 'bc1qexample', deposits: [], ...over,
  };
}

/** Commits one event the way a room does (state change and event in one transaction). */
export async function commitEvent(db: Database, e: { type: string; merchantId: string | null; livemode?: boolean; paymentId?: string; data: unknown }): Promise<void> {
  await db.transaction((tx) => appendEvent(tx, { type: e.type, merchantId: e.merchantId, paymentId: e.paymentId ?? null, livemode: e.livemode ?? false, data: e.data, at: new Date() }));
}

/** A team member of `role` with an open session, and an access token for it. */
export async function memberToken(t: TestApp, merchantId: string, role: string, now = t.platform.clock.now()): Promise<{ token: string; userId: string; sessionId: string; expiresAt: Date }> {
  const userId = newId('usr');
  const sessionId = newId('ses');
  await t.platform.db.orm.insert(users).values({ id: userId, merchantId, email: `${role}-${userId}@example.com`, passwordHash: 'x', role, createdAt: now });
  await t.platform.db.orm.insert(sessions).values({ id: sessionId, userId, merchantId, createdAt: now, expiresAt: new Date(now.getTime() + 7 * 86400_000) });
  const { token, expiresAt } = await t.services.accounts.tokens.issue({ userId, merchantId, sessionId, role }, now);
  return { token, userId, sessionId, expiresAt };
}
