// The developer CLI (bin/): `listen` forwards test-mode events signed as webhooks are, with a
// secret that is the same on every start; `trigger`, `deliveries list` and `deliveries resend` run
// as a real process against a listening service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { listen } from '../../bin/lib/listen.ts';
import { listenSigningSecret } from '../../bin/lib/signing-secret.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';
import { USER_AGENT } from '../../src/webhooks/index.ts';
import { LISTEN_TEST_KEYS_ONLY } from '../../src/listen/index.ts';
import { LIST_DEFAULT } from '../../src/platform/list-params.ts';
import { openTestDatabase } from '../harness/databases.ts';
import { signupAccount, tokenHeader, keyHeader, type Account } from '../harness/accounts.ts';
import { createPayment, confirmPayment } from '../harness/payments.ts';
import { sleep, startSocketApp, type SocketApp } from './realtime-support.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');

interface Received { headers: http.IncomingHttpHeaders; body: string }

describe('gateway CLI', () => {
  let t: SocketApp;
  let dispose: () => Promise<void>;
  let acct: Account;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];
  beforeAll(async () => {
    const opened = await openTestDatabase('pglite');
    dispose = opened.dispose;
    t = await startSocketApp(opened.db, { env: { SIMULATION_STEP_MS: '50' } });
    acct = await signupAccount(t.app);
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => { received.push({ headers: req.headers, body }); res.writeHead(200).end('ok'); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    receiver.close();
    await t.close();
    await dispose();
  });

  it('signs with a secret derived from the key: the same on every start, another for another key', () => {
    expect(listenSigningSecret(acct.testKey)).toBe(listenSigningSecret(acct.testKey));
    expect(listenSigningSecret(acct.testKey)).toMatch(/^[0-9a-f]{64}$/);
    expect(listenSigningSecret(acct.testKey)).not.toBe(listenSigningSecret(acct.liveKey));
  });

  it('listen forwards the test events of the key\'s merchant, signed and with the webhook headers', async () => {
    const other = await signupAccount(t.app);
    const session = listen({ apiUrl: t.url, apiKey: acct.testKey, forwardTo: receiverUrl });
    try {
      expect(await session.ready).toEqual({ merchant_id: acct.merchant.id });
      const mine = await createPayment(t.app, acct.testKey);
      const theirs = await createPayment(t.app, other.testKey);
      await confirmPayment(t, other.testKey, theirs.id);
      await confirmPayment(t, acct.testKey, mine.id);
      // The simulation moves on the service's timers: run them until the last event has been forwarded.
      const end = Date.now() + 20_000;
      while (!received.some((r) => r.headers['x-webhook-event'] === 'payment.confirmed')) {
        if (Date.now() > end) throw new Error(`payment.confirmed not forwarded; got ${received.map((r) => r.headers['x-webhook-event']).join(', ')}`);
        await t.services.payments.runDue();
        await t.platform.outbox.drainNow();
        await sleep(50);
      }
      for (const r of received) {
        const verified = verifyWebhook(r.body, r.headers['x-webhook-signature'] as string, session.secret);
        if (!verified.ok) throw new Error(verified.reason);
        expect(verified.event.livemode).toBe(false);
        expect((verified.event.data as { id: string }).id).toBe(mine.id);
        expect(r.headers['x-webhook-id']).toBe(verified.event.id);
        expect(r.headers['x-webhook-event']).toBe(verified.event.type);
        expect(r.headers['x-webhook-attempt']).toBe('1');
        expect(r.headers['user-agent']).toBe(USER_AGENT);
        expect(r.headers['content-type']).toBe('application/json');
        // The exact bytes a webhook would carry: one line, top-level keys alphabetical, no checkout token.
        expect(Object.keys(JSON.parse(r.body))).toEqual(['created_at', 'data', 'id', 'livemode', 'type']);
        expect(r.body).not.toContain('checkout_token');
      }
      // The same events the payment's timeline stores.
      const events = await t.app.inject({ method: 'GET', url: `/merchant/payments/${mine.id}/events`, headers: tokenHeader(acct.accessToken) });
      const stored = (events.json().events as { id: string; type: string }[]).filter((e) => e.type.startsWith('payment.'));
      expect(received.map((r) => r.headers['x-webhook-id']).sort()).toEqual(stored.map((e) => e.id).sort());
    } finally {
      session.close();
    }
  }, 60_000);

  it('listen with a storefront\'s key forwards its store\'s payments, never the account\'s other payments', async () => {
    const a = await signupAccount(t.app);
    const store = await t.app.inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(a.accessToken), payload: { name: 'Kiosk' } });
    expect(store.statusCode, store.body).toBe(201);
    const storeId = store.json().store.id as string;
    const made = await t.app.inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: tokenHeader(a.accessToken), payload: { store_id: storeId } });
    expect(made.statusCode, made.body).toBe(201);
    const storeKey = made.json().secret as string;
    const heard: { type: string; paymentId?: string }[] = [];
    const session = listen({ apiUrl: t.url, apiKey: storeKey, forwardTo: receiverUrl, onForwarded: (f) => heard.push({ type: f.event.type, paymentId: (JSON.parse(f.event.body).data as { id?: string }).id }) });
    try {
      await session.ready;
      // the account-wide key's payment first: by the time the store's is confirmed, its events have gone by
      const accountWide = await createPayment(t.app, a.testKey);
      await confirmPayment(t, a.testKey, accountWide.id);
      const mine = await createPayment(t.app, storeKey);
      expect(mine.store_id).toBe(storeId);
      await confirmPayment(t, storeKey, mine.id);
      // until the store's payment is heard confirmed and the account's is confirmed and its events handed over
      const confirmed = async (id: string) => (await t.app.inject({ method: 'GET', url: `/v1/payments/${id}`, headers: keyHeader(a.testKey) })).json().status === 'confirmed';
      const end = Date.now() + 20_000;
      while (!heard.some((h) => h.type === 'payment.confirmed') || !(await confirmed(accountWide.id))) {
        if (Date.now() > end) throw new Error(`not forwarded; got ${heard.map((h) => h.type).join(', ')}`);
        await t.services.payments.runDue();
        await t.platform.outbox.drainNow();
        await sleep(50);
      }
      await t.platform.outbox.drainNow();
      await sleep(200);
      expect(heard.filter((h) => h.type.startsWith('payment.')).map((h) => h.paymentId)).toEqual([mine.id, mine.id]);
      expect(heard.some((h) => h.paymentId === accountWide.id)).toBe(false);
    } finally {
      session.close();
    }
  }, 60_000);

  it('listen tells once that the connection is lost, and again when it forwards once more', async () => {
    // a TCP path to the service that can be cut (connections dropped, new ones refused) and restored
    const port = Number(new URL(t.url).port);
    const open = new Set<net.Socket>();
    const proxy = net.createServer((c) => {
      const up = net.connect(port, '127.0.0.1');
      open.add(c).add(up);
      c.pipe(up).pipe(c);
      const drop = () => { c.destroy(); up.destroy(); open.delete(c); open.delete(up); };
      c.on('error', drop).on('close', drop);
      up.on('error', drop).on('close', drop);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyPort = (proxy.address() as AddressInfo).port;
    const problems: string[] = [];
    let resumed = 0;
    const session = listen({
      apiUrl: `http://127.0.0.1:${proxyPort}`, apiKey: acct.testKey, forwardTo: receiverUrl,
      onProblem: (m) => problems.push(m), onResumed: () => { resumed++; },
    });
    try {
      await session.ready;
      // cut for a few reconnection attempts (socket.io retries after 1 s, 2 s, … at most 5 s)
      const closed = new Promise<void>((r) => proxy.close(() => r()));
      for (const c of open) c.destroy();
      await closed;
      const until = Date.now() + 20_000;
      while (problems.length < 1 && Date.now() < until) await sleep(50);
      await sleep(3_500);
      expect(problems).toEqual(['connection lost (transport close); reconnecting']);
      expect(resumed).toBe(0);
      await new Promise<void>((r) => proxy.listen(proxyPort, '127.0.0.1', r));
      while (resumed === 0 && Date.now() < until) await sleep(50);
      expect(resumed).toBe(1);
      expect(problems).toHaveLength(1);
      // and it forwards again
      const before = received.length;
      const p = await createPayment(t.app, acct.testKey);
      await confirmPayment(t, acct.testKey, p.id);
      const end = Date.now() + 20_000;
      const forwarded = () => received.slice(before).some((r) => JSON.parse(r.body).data?.id === p.id);
      // the simulation moves on the service's timers (SIMULATION_STEP_MS apart): run them as the first test does
      while (!forwarded() && Date.now() < end) { await t.services.payments.runDue(); await t.platform.outbox.drainNow(); await sleep(50); }
      expect(forwarded()).toBe(true);
    } finally {
      session.close();
      proxy.close();
      for (const c of open) c.destroy();
    }
  }, 60_000);

  it('listen refuses a live key with the test-key message while the account\'s live mode is off too', async () => {
    const off = await signupAccount(t.app);
    const live = listen({ apiUrl: t.url, apiKey: off.liveKey, forwardTo: receiverUrl });
    await expect(live.ready).rejects.toThrow(LISTEN_TEST_KEYS_ONLY);
    await expect(run(NODE, ['bin/gateway.ts', '--api-url', t.url, '--api-key', off.liveKey, 'listen', '--forward-to', receiverUrl], { cwd: ROOT, timeout: 60_000 }))
      .rejects.toMatchObject({ code: 1, stdout: '', stderr: `${LISTEN_TEST_KEYS_ONLY}\n` });
  }, 60_000);

  it('listen ends at once when its key is revoked: nothing of the merchant is forwarded after, and the refusal is reported', async () => {
    const a = await signupAccount(t.app);
    const other = await t.app.inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: tokenHeader(a.accessToken), payload: {} });
    expect(other.statusCode).toBe(201);
    const otherKey = other.json().secret as string;
    const forwarded: string[] = [];
    let refused: string | null = null;
    const session = listen({ apiUrl: t.url, apiKey: a.testKey, forwardTo: receiverUrl, onForwarded: (f) => forwarded.push(f.event.type), onRefused: (m) => { refused = m; } });
    try {
      await session.ready;
      const revoked = await t.app.inject({ method: 'DELETE', url: `/merchant/api-keys/${a.testKeyId}`, headers: tokenHeader(a.accessToken) });
      expect(revoked.statusCode).toBe(200);
      await t.platform.outbox.drainNow();
      const p = await createPayment(t.app, otherKey);
      await confirmPayment(t, otherKey, p.id);
      const end = Date.now() + 5_000;
      while (Date.now() < end && refused === null) {
        await t.services.payments.runDue();
        await t.platform.outbox.drainNow();
        await sleep(50);
      }
      expect(refused).toBe('invalid api key');
      expect(forwarded).toEqual([]);
    } finally {
      session.close();
    }
  }, 60_000);

  it('listen refuses a live key and a wrong key', async () => {
    const on = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
    expect(on.statusCode).toBe(200);
    const live = listen({ apiUrl: t.url, apiKey: acct.liveKey, forwardTo: receiverUrl });
    await expect(live.ready).rejects.toThrow(LISTEN_TEST_KEYS_ONLY);
    const wrong = listen({ apiUrl: t.url, apiKey: 'f'.repeat(64), forwardTo: receiverUrl });
    await expect(wrong.ready).rejects.toThrow('invalid api key');
    // As a process: the refusal is printed once, and the exit code is 1.
    await expect(run(NODE, ['bin/gateway.ts', '--api-url', t.url, '--api-key', acct.liveKey, 'listen', '--forward-to', receiverUrl], { cwd: ROOT, timeout: 60_000 }))
      .rejects.toMatchObject({ code: 1, stdout: '', stderr: `${LISTEN_TEST_KEYS_ONLY}\n` });
  }, 60_000);

  it('trigger, deliveries list and deliveries resend run as a process', async () => {
    const cli = (...args: string[]) => run(NODE, ['bin/gateway.ts', '--api-url', t.url, '--api-key', acct.testKey, ...args], { cwd: ROOT, timeout: 60_000 });
    const triggered = await cli('trigger', 'confirmed', '--amount', '12');
    expect(triggered.stdout).toMatch(/^payment pay_\S+ \(order cli-[0-9a-f]+\): pending, simulating confirmed$/m);
    await expect(cli('trigger', 'teleported')).rejects.toMatchObject({ stderr: expect.stringContaining('value \'teleported\' is invalid') });

    const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: keyHeader(acct.testKey), payload: { url: receiverUrl } });
    expect(put.statusCode).toBe(200);
    const ping = await t.app.inject({ method: 'POST', url: '/v1/webhook/test', headers: keyHeader(acct.testKey) });
    const id = ping.json().delivery.id as string;
    const creds = ['--email', acct.email, '--password', acct.password];
    const listed = await cli('deliveries', ...creds, 'list');
    expect(listed.stdout).toContain(`${id}  `);
    expect(listed.stdout).toContain('ping');
    const resent = await cli('deliveries', ...creds, 'resend', id);
    expect(resent.stdout.trim()).toBe('redelivery queued');
    await expect(cli('deliveries', 'list')).rejects.toMatchObject({ stderr: expect.stringContaining('give --access-token, or --email and --password') });
  }, 120_000);

  it('says which URL it cannot reach and why, and refuses a --limit out of the bound its help names (LIST_DEFAULT.max)', async () => {
    // a port nothing listens on: taken and closed at once
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const cli = (url: string, ...args: string[]) => run(NODE, ['bin/gateway.ts', '--api-url', url, '--api-key', acct.testKey, ...args], { cwd: ROOT, timeout: 60_000 });
    const unreachable = `cannot reach ${nowhere}: connect ECONNREFUSED ${nowhere.slice('http://'.length)}\n`;
    await expect(cli(nowhere, 'trigger', 'confirmed')).rejects.toMatchObject({ code: 1, stdout: '', stderr: unreachable });
    await expect(cli(nowhere, 'deliveries', '--access-token', 'x', 'list')).rejects.toMatchObject({ code: 1, stdout: '', stderr: unreachable });
    for (const limit of ['abc', '0', String(LIST_DEFAULT.max + 1), '2.5']) {
      await expect(cli(t.url, 'deliveries', '--access-token', 'x', 'list', '--limit', limit))
        .rejects.toMatchObject({ code: 1, stdout: '', stderr: `--limit must be a whole number from 1 to ${LIST_DEFAULT.max}\n` });
    }
    const help = await cli(t.url, 'deliveries', 'list', '--help');
    expect(help.stdout).toMatch(new RegExp(`--limit <n> +1 to ${LIST_DEFAULT.max} \\(default: "20"\\)`));
  }, 120_000);
});
