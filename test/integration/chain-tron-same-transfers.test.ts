// Two Tron transfers alike in everything a transaction says (the hot wallet paying the same amount
// of the same token to the same address twice: two payouts of one merchant, say) signed in one
// pass, against one head block, on the simulated java-tron (which answers DUP_TRANSACTION_ERROR to
// a transaction id it has, as java-tron does): each is its own transaction on the chain, and each
// transfer is reconciled with its own. Their raw_data once differed in nothing (the timestamp was
// the head block's), so they had one id: the node took the first and called the second a
// duplicate, both transfers were counted as sent and mined, and the address was paid once.
// The timestamps are taken per sender in the database, so a second process (or a restart, which
// forgets everything but the database) never signs one already used either.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TronWeb } from 'tronweb';
import { eq, inArray } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { uid } from '../harness/accounts.ts';
import { base58Address, startTronSim, type TronSim } from '../sim/tron/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { outgoingAttempts, outgoingTransfers, recordTransfer, type TransferRow } from '../../src/chains/transfers/index.ts';
import { TronFamily } from '../../src/chains/tron/family.ts';
import { TronRpc } from '../../src/chains/tron/rpc.ts';
import { dbTimestamps } from '../../src/chains/tron/timestamps.ts';

const fresh = async () => ((await TronWeb.createAccount()) as unknown as { address: { base58: string } }).address.base58;

describeEachDb('Tron transfers alike in everything, signed against one head block', (h) => {
  let sim: TronSim;
  let t: TestApp;
  let usdt: string;
  let hot: string;
  // frozen: every signing of a pass reads the same service time too
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    sim = await startTronSim();
    usdt = base58Address(sim.chain.deployToken(6));
    t = await startTestApp(h.db(), {
      clock, env: { TRON_API_URL: sim.url, TOKEN_CONTRACTS: `USDT_TRC20=${usdt}`, CONFIRMATIONS_TRON: '2', CHAIN_POLL_MS: '100' },
    });
    hot = t.services.sending.keys.hotAddress('tron', true);
    sim.chain.fund(hot, 1_000_000_000n);
    sim.chain.mint(usdt, hot, 1_000_000_000n);
    sim.chain.mine(1);
  });
  afterAll(async () => {
    await t?.close();
    await sim?.stop();
  });

  const transfersOf = (ids: string[]) => h.db().orm.select().from(outgoingTransfers).where(inArray(outgoingTransfers.id, ids));
  const record = (token: 'TRX' | 'USDT_TRC20', to: string, amount: bigint): Promise<TransferRow> => recordTransfer(h.db().orm, {
    chain: 'tron', livemode: true, purpose: 'payout', token, fromAddress: hot, fromIndex: null, fromRole: 'hot', toAddress: to, amount, reference: `po_${uid()}`,
  }, clock.now());

  it.each([['USDT_TRC20', 5_000_000n], ['TRX', 3_000_000n]] as const)('%s: two transfers of one amount to one address are two transactions, each reconciled with its own', async (token, amount) => {
    const to = await fresh();
    if (token === 'TRX') sim.chain.fund(to, 1n); // an existing account: no creation fee in either
    const before = token === 'TRX' ? sim.chain.account(to)!.balance : 0n;
    const a = await record(token, to, amount);
    const b = await record(token, to, amount);
    const head = sim.chain.head.number;
    // one pass signs and broadcasts both against the same head block
    await t.services.sending.transfers.runOnce();
    expect(sim.chain.head.number).toBe(head);
    const attempts = await h.db().orm.select().from(outgoingAttempts).where(inArray(outgoingAttempts.transferId, [a.id, b.id]));
    expect(attempts).toHaveLength(2);
    const [x, y] = attempts.map((r) => JSON.parse(r.raw) as { raw_data: { ref_block_hash: string; timestamp: number; expiration: number } });
    expect(x.raw_data.ref_block_hash).toBe(y.raw_data.ref_block_hash);
    expect(attempts[0].txId).not.toBe(attempts[1].txId);
    // the node took both: nothing was called a duplicate
    expect(sim.chain.pending.map((p) => p.txID).sort()).toEqual(attempts.map((r) => r.txId).sort());
    // the timestamps are the service's time (sane: within the transaction's life), the expiration the head's time + 2 minutes
    for (const r of [x, y]) {
      expect(r.raw_data.expiration).toBe(sim.chain.head.timestamp + 120_000);
      expect(r.raw_data.timestamp).toBeGreaterThanOrEqual(clock.now().getTime());
      expect(r.raw_data.timestamp).toBeLessThan(r.raw_data.expiration);
    }

    for (let i = 0; i < 10 && !(await transfersOf([a.id, b.id])).every((r) => r.status === 'final'); i++) {
      sim.chain.mine(1);
      await t.services.sending.transfers.runOnce();
    }
    const done = await transfersOf([a.id, b.id]);
    expect(done.map((r) => r.status)).toEqual(['final', 'final']);
    expect(done[0].txId).not.toBe(done[1].txId);
    // each transfer's transaction is on the chain, moving its amount, and the address holds both
    for (const r of done) {
      const found = sim.chain.findTx(r.txId!)!;
      expect(found.tx.ret?.[0].contractRet).toBe('SUCCESS');
      expect(r.sentAmount).toBe(amount);
    }
    const received = token === 'TRX' ? sim.chain.account(to)!.balance - before : sim.chain.tokenBalance(usdt, to);
    expect(received).toBe(2n * amount);
  });

  it('a timestamp taken once is never taken again: by a second process (its own family, the same database) signing against the same head', async () => {
    const to = await fresh();
    const rpc = new TronRpc(new NodeEndpoints([sim.url]));
    const contracts = { USDT_TRC20: usdt };
    // two processes (or one restarted): nothing shared but the database
    const families = [0, 1].map(() => new TronFamily(rpc, t.services.sending.keys, contracts, { timestamps: dbTimestamps(h.db()), now: () => clock.now() }));
    const row = await record('USDT_TRC20', to, 1_000_000n);
    const signed = [];
    for (const f of [...families, ...families]) {
      const prep = await f.prepare(row, { feesPaidBefore: 0n, unsentFromSender: [] });
      if (prep.kind !== 'ready') throw new Error(prep.kind);
      signed.push(await h.db().transaction((tx) => prep.sign(null, tx)));
    }
    expect(new Set(signed.map((s) => s.txId)).size).toBe(4);
    const stamps = signed.map((s) => (JSON.parse(s.raw) as { raw_data: { timestamp: number } }).raw_data.timestamp);
    expect(stamps).toEqual([...stamps].sort((p, q) => p - q));
    await h.db().orm.delete(outgoingTransfers).where(eq(outgoingTransfers.id, row.id));
  });
});
