// kill -9 of the real service during a direct Tron settlement (TRX, and USDT_TRC20 with its energy
// top-up from the hot wallet), the simulated java-tron running in a process of its own
// (test/sim/tron/main.ts, it outlives every kill): killed with the merchant's transaction signed and
// stored but its broadcast never reaching the node; killed again with the same transaction taken by
// the node but the answer lost; killed while the watcher counts the confirmations of the block that
// holds it; then restarted on the same database. And killed before the broadcast, the chain then
// passing the transaction's expiration while the service is down: the restart signs it again, and
// the first can never land. Every time: exactly one transaction leaves the deposit address for the
// merchant's address, of exactly `net` (sun / token base units), with the id the settlement names;
// `settlement.completed` is raised and delivered once; on USDT_TRC20 the TRX burnt (top-up, energy,
// bandwidth) is the settlement's network fee, once.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { TronWeb } from 'tronweb';
import { eq, sql } from 'drizzle-orm';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';
import { randomIp, signupAccount, tokenHeader } from '../harness/accounts.ts';
import { startTestApp, TEST_MARKET_FILE, TEST_MNEMONIC, TEST_SERVICE_ENV } from '../harness/app.ts';
import { createLivePayment, settlementsOf } from '../harness/chain-send.ts';
import { eventReceiver, freePort, killWhen, spawnService, spawnSimulator, waitListening, type ServiceProcess } from '../harness/process.ts';
import { openPostgres, migrate, queryRows, type Database } from '../../src/platform/db/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { dec, parseUnits } from '../../src/money/index.ts';
import { buildSigned, transferCallData, type TronCall } from '../../src/chains/tron/build.ts';
import { EXPIRATION_MS } from '../../src/chains/tron/family.ts';
import { tronHex } from '../../src/chains/tron/rpc.ts';
import { burntInToken } from '../../src/settlement/burnt-fee.ts';
import { outgoingAttempts, outgoingTransfers, type TransferRow } from '../../src/chains/transfers/index.ts';
import { ledgerEntries } from '../../src/settlement/index.ts';
import type { TokenSymbol } from '../../src/tokens/index.ts';

type Mode = 'pass' | 'stall' | 'no-answer';
type Token = 'TRX' | 'USDT_TRC20';
type Json = Record<string, any>;
type SimTx = { block: number; tx: Json; info: Json };

const CONFIRMATIONS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a transaction pays `payoutHex` (TRX to it, or a token's transfer call to it). */
function paysTo(tx: Json, payoutHex: string): boolean {
  const c = tx?.raw_data?.contract?.[0];
  const v = c?.parameter?.value ?? {};
  if (c?.type === 'TransferContract') return tronHex(String(v.to_address)) === payoutHex;
  return c?.type === 'TriggerSmartContract' && String(v.data ?? '').slice(8, 72) === payoutHex.slice(2).padStart(64, '0');
}

/** A path to the node whose broadcasts of transactions to the merchant can stall (never reach it) or reach it and never be answered. */
async function broadcastProxy(target: string) {
  const waiters: ((txID: string) => void)[] = [];
  const state = { mode: 'pass' as Mode, payoutHex: '', broadcasts: [] as string[], saw: () => new Promise<string>((r) => waiters.push(r)) };
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      const path = req.url ?? '';
      let ours: string | null = null;
      if (path.startsWith('/wallet/broadcasttransaction')) {
        const tx = JSON.parse(body) as Json;
        if (paysTo(tx, state.payoutHex)) ours = String(tx.txID);
      }
      if (ours) state.broadcasts.push(ours);
      const mode = ours ? state.mode : 'pass';
      if (mode === 'stall') { for (const w of waiters.splice(0)) w(ours!); return; }
      const r = await fetch(target + path, { method: req.method, headers: { 'content-type': 'application/json' }, ...(req.method === 'POST' ? { body } : {}) });
      const answer = await r.text();
      if (ours) for (const w of waiters.splice(0)) w(ours);
      if (mode === 'no-answer') return;
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }),
  });
}

describe.skipIf(!pgServerUrl())('kill -9 during a Tron settlement (java-tron in its own process)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

  async function setup(token: Token) {
    // a node of its own per test (the hot wallet is the same mnemonic's in all)
    const sim = await spawnSimulator('test/sim/tron/main.ts', await freePort());
    const simChild = sim.child;
    cleanups.push(async () => { simChild.kill('SIGTERM'); });
    const post = async (path: string, body: Json = {}) => {
      const r = await fetch(sim.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return await r.json() as any;
    };
    const ctl = (name: string, body: Json = {}) => post(`/sim/${name}`, body);
    const mine = (n = 1) => ctl('mine', { n });
    const txs = async () => await ctl('txs') as SimTx[];
    const usdt = (await ctl('deploy', { decimals: 6 })).contract as string;

    const proxy = await broadcastProxy(sim.url);
    cleanups.push(proxy.close);
    const hooks = await eventReceiver();
    cleanups.push(hooks.close);
    const created = await createPgDatabase();
    cleanups.push(created.drop);
    const db = await openPostgres(created.url);
    cleanups.push(() => db.close());
    await migrate(db);
    const env = { TRON_API_URL: proxy.url, TOKEN_CONTRACTS: `USDT_TRC20=${usdt}`, CONFIRMATIONS_TRON: String(CONFIRMATIONS), SETTLEMENT_DELAY_S: '0' };

    // a live payment paid by a customer and confirmed in-process; its settlement recorded, nothing sent
    const t = await startTestApp(db, { clock: new ManualClock(new Date()), env });
    let prepared;
    try {
      const acct = await signupAccount(t.app);
      expect((await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: { authorization: `Bearer ${acct.liveKey}` }, payload: { url: hooks.url } })).statusCode).toBe(200);
      const payout = ((await TronWeb.createAccount()) as unknown as { address: { base58: string } }).address.base58;
      proxy.payoutHex = tronHex(payout)!;
      expect((await t.app.inject({
        method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
        payload: { token, address: payout, password: acct.password },
      })).statusCode).toBe(201);
      const hot = t.services.sending.keys.hotAddress('tron', true);
      const customer = (await TronWeb.createAccount()) as unknown as { address: { hex: string }; privateKey: string };
      await ctl('fund', { address: hot, sun: '1000000000' });
      await ctl('fund', { address: customer.address.hex, sun: '1000000000' });
      await ctl('mint', { contract: usdt, address: customer.address.hex, amount: '100000000000' });
      await mine();
      // the watcher's cursor starts here
      await t.services.watching.runOnce();
      // a large payment: the service's share is more than the TRX a USDT settlement burns, so the burn is recorded as it is
      const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, token, token === 'TRX' ? '50' : '1000');
      const amount = parseUnits(p.crypto_amount, 6)!;
      const to = tronHex(p.deposit_address)!;
      const call: TronCall = token === 'TRX'
        ? { type: 'TransferContract', owner: customer.address.hex.toLowerCase(), to, amount }
        : { type: 'TriggerSmartContract', owner: customer.address.hex.toLowerCase(), contract: tronHex(usdt)!, data: transferCallData(to, amount), feeLimit: 100_000_000n };
      const head = await post('/wallet/getnowblock');
      const ts = head.block_header.raw_data.timestamp as number;
      const paid = await post('/wallet/broadcasttransaction', buildSigned(call, { blockID: head.blockID, timestamp: ts }, { expiration: ts + 60_000, timestamp: ts }, Buffer.from(customer.privateKey, 'hex')));
      expect(paid.result).toBe(true);
      await mine(CONFIRMATIONS + 1);
      await t.services.watching.runOnce();
      await t.platform.outbox.drainNow();
      const [s] = await settlementsOf(t, p.id);
      expect(s?.status).toBe('pending');
      prepared = { p, s, payout, hot, deposit: p.deposit_address as string };
    } finally {
      await t.close();
    }

    const port = await freePort();
    const start = async (): Promise<ServiceProcess> => {
      const child = spawnService({
        PORT: String(port), DATABASE_URL: created.url, ...TEST_SERVICE_ENV, WALLET_MNEMONIC: TEST_MNEMONIC, WEBHOOK_ALLOW_PRIVATE: '1',
        ...env, CHAIN_POLL_MS: '100',
      });
      cleanups.push(async () => { child.child.kill('SIGKILL'); });
      await waitListening(child);
      return child;
    };
    const ofSettlement = async () => await db.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, prepared.s.id as string));
    const merchantTransfer = async (): Promise<TransferRow | undefined> => (await ofSettlement()).find((x) => x.purpose === 'settlement');
    const attemptsOf = async (id: string) => (await db.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id))).sort((a, b) => a.n - b.n);
    /** Mines a block every 300 ms until `done` resolves (a top-up waits for its block). */
    const mining = async <T>(done: Promise<T>): Promise<T> => {
      let over = false;
      void done.finally(() => { over = true; });
      while (!over) { await mine(); await Promise.race([done, sleep(300)]).catch(() => {}); }
      return done;
    };
    /** Mines until the settlement is completed and every transfer of it (and its top-up) final. */
    const untilDone = async () => {
      for (let i = 0; i < 300; i++) {
        const [row] = await queryRows<{ status: string }>(db.orm, sql`select status from settlements where id = ${prepared.s.id}`);
        const open = (await ofSettlement()).filter((x) => x.status !== 'final');
        if (row?.status === 'completed' && open.length === 0) return;
        await mine();
        await sleep(100);
      }
      throw new Error('the settlement did not complete');
    };
    /** Resolves when the merchant's transaction's broadcast is seen stalled with the transfer signed. */
    const stalledSigned = async () => {
      for (;;) {
        const id = await proxy.saw();
        const m = await merchantTransfer();
        if (m?.status === 'signed' && (await attemptsOf(m.id)).some((a) => a.txId === id)) return id;
      }
    };
    return { ...prepared, token, sim, proxy, hooks, db, start, mine, txs, post, usdt, merchantTransfer, attemptsOf, ofSettlement, mining, untilDone, stalledSigned };
  }
  type Setup = Awaited<ReturnType<typeof setup>>;

  /** The merchant got one transaction of exactly net, the first one signed never lands, the event raised and delivered once, the burn recorded once. */
  /** The service started with broadcasts stalled, killed once the merchant's transaction is signed and stored: that transfer, its attempt and transaction. */
  async function killedBeforeBroadcast(x: Setup) {
    x.proxy.mode = 'stall';
    const first = await x.start();
    const stalled = x.mining(x.stalledSigned());
    await killWhen(first, stalled);
    const firstId = await stalled;
    const signed = (await x.merchantTransfer())!;
    const [attempt] = await x.attemptsOf(signed.id);
    return { firstId, signed, attempt, firstTx: JSON.parse(attempt.raw) as Json };
  }

  async function check(x: Setup, firstTx: Json): Promise<void> {
    const [s] = await queryRows<{ net: string; tx_id: string; network_fee: string; service_fee: string }>(x.db.orm, sql`select net::text as net, tx_id, network_fee::text as network_fee, service_fee::text as service_fee from settlements where id = ${x.s.id}`);
    const net = BigInt(s.net);
    expect(net).toBe(parseUnits(x.s.net, 6));
    const payoutHex = tronHex(x.payout)!;
    const depositHex = tronHex(x.deposit)!;
    const toMerchant = (all: SimTx[]) => all.filter((e) => paysTo(e.tx, payoutHex));
    const moved = (e: SimTx) => {
      const v = e.tx.raw_data.contract[0].parameter.value;
      return e.tx.raw_data.contract[0].type === 'TransferContract' ? BigInt(v.amount) : BigInt(`0x${String(v.data).slice(72, 136)}`);
    };
    const sent = toMerchant(await x.txs());
    expect(sent.map((e) => [tronHex(e.tx.raw_data.contract[0].parameter.value.owner_address), moved(e), e.tx.txID, e.tx.ret[0].contractRet])).toEqual([[depositHex, net, s.tx_id, 'SUCCESS']]);
    // the merchant's balance on the node is exactly net
    if (x.token === 'TRX') {
      expect(BigInt((await x.post('/wallet/getaccount', { address: payoutHex })).balance)).toBe(net);
    } else {
      const r = await x.post('/wallet/triggerconstantcontract', { contract_address: tronHex(x.usdt), owner_address: payoutHex, function_selector: 'balanceOf(address)', parameter: payoutHex.slice(2).padStart(64, '0') });
      expect(BigInt(`0x${r.constant_result[0]}`)).toBe(net);
    }
    // the first transaction can never land (taken already, or expired)
    const again = await x.post('/wallet/broadcasttransaction', firstTx);
    expect(again.result).not.toBe(true);
    expect(['DUP_TRANSACTION_ERROR', 'TRANSACTION_EXPIRATION_ERROR']).toContain(again.code);
    await x.mine();
    expect(toMerchant(await x.txs())).toHaveLength(1);
    // what the deposit address's transactions and its top-ups burnt is the network fee, recorded once
    const all = await x.txs();
    const burnt = all.filter((e) => {
      const v = e.tx.raw_data.contract[0].parameter.value;
      return tronHex(v.owner_address) === depositHex || (tronHex(v.owner_address) === tronHex(x.hot) && v.to_address && tronHex(v.to_address) === depositHex);
    }).reduce((sum, e) => sum + BigInt(e.info.fee ?? 0), 0n);
    const rates = Object.fromEntries(Object.entries(JSON.parse(fs.readFileSync(TEST_MARKET_FILE, 'utf8')).rates as Record<string, string>).map(([k, v]) => [k, dec(v)]));
    const inToken = burntInToken(x.token as TokenSymbol, { token: 'TRX', amount: burnt }, rates)!;
    const pool = parseUnits(x.s.service_fee, 6)! + parseUnits(x.s.network_fee, 6)!;
    expect(inToken).toBeLessThan(pool);
    expect(BigInt(s.network_fee)).toBe(inToken);
    expect(BigInt(s.service_fee)).toBe(pool - inToken);
    const entries = (await x.db.orm.select().from(ledgerEntries)).filter((e) => e.paymentId === x.p.id);
    const sum = (type: string) => entries.filter((e) => e.type === type).reduce((a, e) => a + e.amount, 0n);
    expect(sum('network_fee')).toBe(-inToken);
    expect(sum('fee')).toBe(-(pool - inToken));
    const events = await queryRows<{ type: string; n: number }>(x.db.orm, sql`select type, count(*)::int as n from events where payment_id = ${x.p.id} and type like 'settlement%' group by type order by type`);
    expect(events).toEqual(expect.arrayContaining([{ type: 'settlement.completed', n: 1 }]));
    // delivered once (the service that raised it may have been killed before delivering: its restart delivers it)
    for (let i = 0; i < 100 && !x.hooks.got.some((e) => e.type === 'settlement.completed'); i++) await sleep(100);
    expect(x.hooks.got.filter((e) => e.type === 'settlement.completed')).toHaveLength(1);
  }

  it.each(['TRX', 'USDT_TRC20'] as const)('%s: killed before the broadcast reached the node, again with the answer lost, again while counting confirmations: one transfer of net', async (token) => {
    const x = await setup(token);
    // 1. signed and stored, the broadcast never reaches the node
    const { firstId, signed, attempt, firstTx } = await killedBeforeBroadcast(x);
    expect(signed.status).toBe('signed');
    expect(attempt.txId).toBe(firstId);
    expect((await x.txs()).filter((e) => paysTo(e.tx, x.proxy.payoutHex))).toEqual([]);

    // 2. the same transaction again: the node takes it, the answer never comes back
    x.proxy.mode = 'no-answer';
    const second = await x.start();
    await killWhen(second, (async () => { for (;;) { if (await x.proxy.saw() === firstId) return; } })());

    // 3. in a block; killed while the watcher counts its confirmations
    x.proxy.mode = 'pass';
    await x.mine();
    const third = await x.start();
    await killWhen(third, (async () => { for (;;) { if ((await x.merchantTransfer())!.status === 'mined') return; await sleep(50); } })());
    const fourth = await x.start();
    await x.untilDone();
    const done = (await x.merchantTransfer())!;
    expect(done).toMatchObject({ status: 'final', txId: firstId });
    expect((await x.attemptsOf(done.id)).map((a) => a.txId)).toEqual([firstId]);
    await check(x, firstTx);
    fourth.child.kill('SIGTERM');
    expect((await fourth.exited).code).toBe(0);
  }, 120_000);

  it.each(['TRX', 'USDT_TRC20'] as const)('%s: killed before the broadcast, its expiration passed while the service is down: signed again, the first never lands', async (token) => {
    const x = await setup(token);
    const { firstId, firstTx } = await killedBeforeBroadcast(x);
    // blocks every 3 s of chain time: past the expiration the service wrote in it
    const blocks = Math.ceil(EXPIRATION_MS / 3000) + 2;
    const head = await x.mine(blocks);
    expect(head.timestamp).toBeGreaterThan(Number(firstTx.raw_data.expiration));
    x.proxy.mode = 'pass';
    const second = await x.start();
    await x.untilDone();
    const done = (await x.merchantTransfer())!;
    expect(done.status).toBe('final');
    const ids = (await x.attemptsOf(done.id)).map((a) => a.txId);
    expect(ids[0]).toBe(firstId);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(done.txId).not.toBe(firstId);
    await check(x, firstTx);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 120_000);
});
