// kill -9 of the real service during an XRP settlement, the simulated rippled running in a process
// of its own (it outlives every kill): killed with the Payment signed and stored but its submit never
// reaching the node; killed again with the same blob applied by the node but the answer lost; killed
// while the watcher counts the confirmations of the validated ledger that took it; then restarted on
// the same database. And killed before the submit, the network then passing its LastLedgerSequence
// while the service is down: the restart signs it again with the same sequence, and the first blob
// can never land. Every time: exactly one Payment leaves the service address for the payout address,
// of exactly `net` drops with its tag (the service's fee stays: spec direct rule 7); the transfer's
// sequence is the one it was first given; `settlement.completed` is raised and delivered once.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Wallet } from 'xrpl';
import { eq, sql } from 'drizzle-orm';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';
import { randomIp, signupAccount, tokenHeader } from '../harness/accounts.ts';
import { startTestApp, TEST_MNEMONIC, TEST_SERVICE_ENV } from '../harness/app.ts';
import { createLivePayment, settlementsOf } from '../harness/chain-send.ts';
import { eventReceiver, freePort, killWhen, spawnService, spawnSimulator, waitListening, type ServiceProcess } from '../harness/process.ts';
import { GENESIS } from '../sim/xrp/ledger.ts';
import { openPostgres, migrate, queryRows, type Database } from '../../src/platform/db/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { parseUnits } from '../../src/money/index.ts';
import { LEDGER_WINDOW } from '../../src/chains/xrp/index.ts';
import { outgoingAttempts, outgoingTransfers } from '../../src/chains/transfers/index.ts';

type Mode = 'pass' | 'stall' | 'no-answer';

/** A JSON-RPC path to the node whose `submit` calls can stall (never reach it) or reach it and never be answered. */
async function submitProxy(target: string) {
  const waiters: ((blob: string) => void)[] = [];
  const state = { mode: 'pass' as Mode, submits: [] as string[], saw: () => new Promise<string>((r) => waiters.push(r)) };
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      const call = JSON.parse(body) as { method?: string; params?: Array<{ tx_blob?: string }> };
      const blob = call.method === 'submit' ? String(call.params?.[0]?.tx_blob).toUpperCase() : null;
      if (blob) state.submits.push(blob);
      const mode = blob ? state.mode : 'pass';
      if (mode === 'stall') { for (const w of waiters.splice(0)) w(blob!); return; }
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text());
      if (blob) for (const w of waiters.splice(0)) w(blob);
      if (mode === 'no-answer') return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }),
  });
}

describe.skipIf(!pgServerUrl())('kill -9 during an XRP settlement (rippled in its own process)', () => {
  let sim: { url: string; child: ChildProcess };
  const cleanups: (() => Promise<void>)[] = [];
  const genesis = Wallet.fromSeed(GENESIS.seed);
  const rpc = async (method: string, params: Record<string, unknown> = {}) => {
    const r = await fetch(sim.url, { method: 'POST', body: JSON.stringify({ method, params: [params] }) });
    return (await r.json() as { result: Record<string, any> }).result;
  };
  const closeLedger = () => rpc('ledger_accept');
  /** Genesis pays `drops` (the test's faucet and the customer), applied at the next close. */
  async function pay(to: string, drops: bigint, tag?: number): Promise<string> {
    const seq = (await rpc('account_info', { account: genesis.address, ledger_index: 'current' })).account_data.Sequence;
    const cur = (await rpc('ledger_current')).ledger_current_index;
    const signed = genesis.sign({ TransactionType: 'Payment', Account: genesis.address, Destination: to, Amount: drops.toString(), Fee: '12', Sequence: seq, LastLedgerSequence: cur + 20, Flags: 0, ...(tag !== undefined ? { DestinationTag: tag } : {}) });
    const r = await rpc('submit', { tx_blob: signed.tx_blob });
    if (r.engine_result !== 'tesSUCCESS') throw new Error(`payment refused: ${r.engine_result}`);
    return r.hash as string;
  }
  /** Every validated transaction of `account`, oldest first. */
  const txsOf = async (account: string) => ((await rpc('account_tx', { account, forward: true, limit: 400 })).transactions as Array<{ tx: Record<string, any>; meta: Record<string, any> }>);

  afterAll(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

  /** A live XRP payment paid with its tag and confirmed in-process; its settlement recorded, nothing sent. */
  async function prepare(db: Database, rpcUrl: string, hookUrl: string) {
    const t = await startTestApp(db, { clock: new ManualClock(new Date()), env: { XRP_RPC_URL: rpcUrl, CONFIRMATIONS_XRP: '3', SETTLEMENT_DELAY_S: '0' } });
    try {
      const acct = await signupAccount(t.app);
      expect((await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: { authorization: `Bearer ${acct.liveKey}` }, payload: { url: hookUrl } })).statusCode).toBe(200);
      const payout = Wallet.generate().address;
      expect((await t.app.inject({
        method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
        payload: { token: 'XRP', address: payout, tag: 77, password: acct.password },
      })).statusCode).toBe(201);
      await pay(payout, 20_000_000n);
      const service = t.services.sending.keys.hotAddress('xrp', true);
      // the service address's reserve (any tag no payment has)
      await pay(service, 30_000_000n, 1);
      await closeLedger();
      await t.services.watching.runOnce();
      const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'XRP');
      await pay(service, parseUnits(p.crypto_amount, 6)!, p.destination_tag);
      for (let i = 0; i < 4; i++) await closeLedger();
      await t.services.watching.runOnce();
      await t.platform.outbox.drainNow();
      const [s] = await settlementsOf(t, p.id);
      expect(s?.status).toBe('pending');
      return { p, s, payout, service };
    } finally {
      await t.close();
    }
  }

  async function setup() {
    // a node of its own per test (the service address is the same mnemonic's in both)
    sim = await spawnSimulator('test/sim/xrp/main.ts', await freePort());
    const mine = sim.child;
    cleanups.push(async () => { mine.kill('SIGTERM'); });
    const proxy = await submitProxy(sim.url);
    cleanups.push(proxy.close);
    const hooks = await eventReceiver();
    cleanups.push(hooks.close);
    const created = await createPgDatabase();
    cleanups.push(created.drop);
    const db = await openPostgres(created.url);
    cleanups.push(() => db.close());
    await migrate(db);
    const prepared = await prepare(db, proxy.url, hooks.url);
    const port = await freePort();
    const start = async (): Promise<ServiceProcess> => {
      const p = spawnService({
        PORT: String(port), DATABASE_URL: created.url, ...TEST_SERVICE_ENV, WALLET_MNEMONIC: TEST_MNEMONIC, WEBHOOK_ALLOW_PRIVATE: '1',
        XRP_RPC_URL: proxy.url, CONFIRMATIONS_XRP: '3', CHAIN_POLL_MS: '100', SETTLEMENT_DELAY_S: '0',
      });
      cleanups.push(async () => { p.child.kill('SIGKILL'); });
      await waitListening(p);
      return p;
    };
    const settlementTransfer = async () => (await db.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.purpose, 'settlement')))[0];
    return { ...prepared, proxy, hooks, db, start, settlementTransfer };
  }

  /** Closes ledgers until the settlement reads completed (the live service running). */
  async function untilCompleted(db: Database, id: string): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const [row] = await queryRows<{ status: string }>(db.orm, sql`select status from settlements where id = ${id}`);
      if (row?.status === 'completed') return;
      await closeLedger();
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the settlement did not complete');
  }

  async function check(x: Awaited<ReturnType<typeof setup>>, firstBlob: string, seq: number): Promise<void> {
    const [s] = await queryRows<{ net: string; tx_id: string }>(x.db.orm, sql`select net::text as net, tx_id from settlements where id = ${x.s.id}`);
    const net = BigInt(s.net);
    const payments = (await txsOf(x.service)).filter((e) => e.tx.TransactionType === 'Payment' && e.tx.Account === x.service && e.meta.TransactionResult === 'tesSUCCESS');
    expect(payments.map((e) => [e.tx.Destination, e.tx.DestinationTag, e.tx.Amount, e.tx.Sequence, e.tx.hash])).toEqual([[x.payout, 77, String(net), seq, s.tx_id]]);
    const received = (await txsOf(x.payout)).filter((e) => e.tx.Destination === x.payout && e.tx.Account === x.service);
    expect(received).toHaveLength(1);
    // the first blob can never land (its sequence is used, or it expired)
    const again = await rpc('submit', { tx_blob: firstBlob });
    expect(['tefPAST_SEQ', 'tefMAX_LEDGER', 'tefALREADY']).toContain(again.engine_result);
    await closeLedger();
    expect((await txsOf(x.payout)).filter((e) => e.tx.Account === x.service)).toHaveLength(1);
    const events = await queryRows<{ type: string; n: number }>(x.db.orm, sql`select type, count(*)::int as n from events where payment_id = ${x.p.id} and type like 'settlement.%' group by type`);
    expect(events).toEqual(expect.arrayContaining([{ type: 'settlement.completed', n: 1 }]));
    // delivered once (the service that raised it may have been killed before delivering: its restart delivers it)
    for (let i = 0; i < 100 && !x.hooks.got.some((e) => e.type === 'settlement.completed'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(x.hooks.got.filter((e) => e.type === 'settlement.completed')).toHaveLength(1);
  }

  it('killed before the submit reached the node, again with the answer lost, again while counting confirmations: one Payment of net', async () => {
    const x = await setup();
    // 1. signed and stored, the submit never reaches the node
    x.proxy.mode = 'stall';
    const first = await x.start();
    const blob = (async () => { for (;;) { const b = await x.proxy.saw(); const t = await x.settlementTransfer(); if (t?.status === 'signed') return b; } })();
    await killWhen(first, blob);
    const signed = await x.settlementTransfer();
    expect(signed).toMatchObject({ status: 'signed' });
    const [attempt] = await x.db.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, signed.id));
    const firstBlob = String(attempt.raw).toUpperCase();
    const seq = Number(signed.nonce);

    // 2. the same blob again: the node applies it, the answer never comes back
    x.proxy.mode = 'no-answer';
    const second = await x.start();
    const again = (async () => { for (;;) { const b = await x.proxy.saw(); if (b === firstBlob) return b; } })();
    await killWhen(second, again);

    // 3. validated; killed while the watcher counts its confirmations
    x.proxy.mode = 'pass';
    await closeLedger();
    const third = await x.start();
    await killWhen(third, (async () => { for (;;) { if ((await x.settlementTransfer()).status === 'mined') return; await new Promise((r) => setTimeout(r, 50)); } })());
    const fourth = await x.start();
    await untilCompleted(x.db, x.s.id);
    const mine = await x.settlementTransfer();
    expect(mine).toMatchObject({ status: 'final', nonce: BigInt(seq) });
    expect((await x.db.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, mine.id))).map((a) => String(a.raw).toUpperCase())).toEqual([firstBlob]);
    await check(x, firstBlob, seq);
    fourth.child.kill('SIGTERM');
    expect((await fourth.exited).code).toBe(0);
  }, 240_000);

  it('killed before the submit, its LastLedgerSequence passed while the service is down: signed again with the same sequence, the first blob never lands', async () => {
    const x = await setup();
    x.proxy.mode = 'stall';
    const first = await x.start();
    await killWhen(first, (async () => { for (;;) { await x.proxy.saw(); if ((await x.settlementTransfer())?.status === 'signed') return; } })());
    const signed = await x.settlementTransfer();
    const [attempt] = await x.db.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, signed.id));
    const firstBlob = String(attempt.raw).toUpperCase();
    const seq = Number(signed.nonce);
    for (let i = 0; i <= LEDGER_WINDOW + 1; i++) await closeLedger();
    x.proxy.mode = 'pass';
    const second = await x.start();
    await untilCompleted(x.db, x.s.id);
    const done = await x.settlementTransfer();
    expect(done).toMatchObject({ status: 'final', nonce: BigInt(seq) });
    const blobs = (await x.db.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, done.id))).map((a) => String(a.raw).toUpperCase());
    expect(blobs[0]).toBe(firstBlob);
    expect(blobs.length).toBeGreaterThanOrEqual(2);
    await check(x, firstBlob, seq);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 240_000);
});
