// XRP end to end on the simulated rippled (which verifies every signature): a live XRP payment paid
// to the service address with its destination tag, read from the validated ledger by the chain
// watcher driving the XRP reader, is confirmed and settled by one Payment of
// exactly `net` carrying the payout address's tag (spec direct rule 7: the service's fee stays);
// a partial payment counts for what it delivered; an untagged payment is unmatched; the node going
// away and coming back leaves the settlement to complete.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Wallet } from 'xrpl';
import { describeEachDb } from '../harness/databases.ts';
import { randomIp, tokenHeader, signupAccount, type Account } from '../harness/accounts.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { createLivePayment, hotWallet, settlementsOf } from '../harness/chain-send.ts';
import { getPayment, type Json } from '../harness/payments.ts';
import { injectPartialPayment, payXrp, submitXrpPayment } from '../harness/xrp.ts';
import { startXrpSim, type XrpSim } from '../sim/xrp/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { formatUnits, parseUnits } from '../../src/money/index.ts';
import { and, eq } from 'drizzle-orm';
import { unmatchedDeposits } from '../../src/chains/watch/index.ts';
import { outgoingAttempts, outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { events } from '../../src/events/index.ts';
import { recordAccountSetting } from '../../src/chains/transfers/intents.ts';
import { LSF_REQUIRE_DEST_TAG } from '../../src/chains/xrp/sign.ts';

describeEachDb('XRP paid, confirmed, settled on the simulated rippled', (h) => {
  let sim: XrpSim;
  let t: TestApp;
  let acct: Account;
  const payout = Wallet.generate().address;
  const PAYOUT_TAG = 991;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    sim = await startXrpSim();
    t = await startTestApp(h.db(), { clock, env: { XRP_RPC_URL: sim.wsUrl, CONFIRMATIONS_XRP: '1', SETTLEMENT_DELAY_S: '0', CHAIN_POLL_MS: '100' } });
    expect(t.services.sending.readers.xrp).toBeDefined();
    acct = await signupAccount(t.app);
    const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
    expect(live.statusCode).toBe(200);
    const res = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
      payload: { token: 'XRP', address: payout, tag: PAYOUT_TAG, password: acct.password },
    });
    expect(res.statusCode).toBe(201);
    // the merchant's payout account exists already (a new one needs the base reserve at once)
    payXrp(sim, payout, 20_000_000n);
    sim.close();
    // the watcher's cursor starts here
    await watch();
  });
  afterAll(async () => {
    await t?.close();
    await sim?.stop();
  });

  /** A pass of the chain watcher (the XRP reader over the app's own rippled connection), then the outbox. */
  async function watch(): Promise<void> {
    await t.services.watching.runOnce();
    await t.platform.outbox.drainNow();
  }

  async function driveUntil(done: () => Promise<boolean>, max = 30): Promise<void> {
    for (let i = 0; i < max; i++) {
      await t.services.sending.transfers.runOnce().catch(() => {});
      await t.services.watching.runOnce().catch(() => {});
      await t.platform.outbox.drainNow();
      if (await done()) return;
      sim.close();
    }
    throw new Error('not done');
  }

  const drops = (v: string) => parseUnits(v, 6)!;
  const completed = async (id: string) => (await settlementsOf(t, id))[0]?.status === 'completed';

  it('paid with its tag, confirmed, settled: exactly net at the payout address with its tag; an untagged payment is unmatched', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'XRP');
    expect(p.destination_tag).toEqual(expect.any(Number));
    const owed = drops(p.crypto_amount);
    const paid = payXrp(sim, p.deposit_address, owed, p.destination_tag);
    // untagged: never this payment's (it also gives the service address its reserve)
    const untagged = payXrp(sim, p.deposit_address, 30_000_000n);
    sim.close();
    await watch();
    const read = await getPayment(t.app, acct.liveKey, p.id);
    expect(read.status).toBe('confirmed');
    expect(read.deposits.map((d: Json) => d.tx_id)).toEqual([paid]);
    const [unmatched] = await t.platform.db.orm.select().from(unmatchedDeposits).where(eq(unmatchedDeposits.txId, untagged));
    expect(unmatched).toMatchObject({ chain: 'xrp', address: p.deposit_address, destinationTag: null, amount: 30_000_000n, paymentId: null });

    const before = sim.ledger.accounts.get(payout)!.balance;
    await driveUntil(() => completed(p.id));
    const [s] = await settlementsOf(t, p.id);
    expect(sim.ledger.accounts.get(payout)!.balance - before).toBe(drops(s.net));
    const found = sim.ledger.findTx(s.tx_id)!.tx;
    expect(found.tx).toMatchObject({ Destination: payout, DestinationTag: PAYOUT_TAG, Amount: String(drops(s.net)), Account: p.deposit_address });
    // the service address is the XRP hot wallet of /admin/wallets, its balance read from the node
    const wallet = await hotWallet(t, 'xrp');
    expect(wallet.address).toBe(p.deposit_address);
    expect(wallet.balances).toEqual([{ token: 'XRP', amount: formatUnits(sim.ledger.accounts.get(p.deposit_address)!.balance, 6) }]);
    // one payment: the service's fee stayed on the service address
    expect(sim.ledger.closed.flatMap((x) => x.txs).filter((x) => x.tx.Account === p.deposit_address && x.tx.TransactionType === 'Payment')).toHaveLength(1);
  });

  it('RequireDest: the service address is set once to refuse untagged payments (tecDST_TAG_NEEDED); tagged ones still arrive', async () => {
    const service = t.services.sending.keys.hotAddress('xrp', true);
    const settings = () => t.platform.db.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.purpose, 'account_setting'));
    // recorded like any transfer, before it is signed, and made once the address could pay its fee
    await driveUntil(async () => (await settings())[0]?.status === 'final');
    expect((sim.ledger.accounts.get(service)!.flags & LSF_REQUIRE_DEST_TAG) !== 0).toBe(true);
    const before = sim.ledger.accounts.get(service)!.balance;
    const bounced = submitXrpPayment(sim, service, 5_000_000n);
    expect(bounced.engine_result).toBe('tecDST_TAG_NEEDED');
    sim.close();
    await watch();
    expect(sim.ledger.findTx(bounced.hash)!.tx.meta).toMatchObject({ TransactionResult: 'tecDST_TAG_NEEDED' });
    expect(sim.ledger.accounts.get(service)!.balance).toBe(before);
    // a failed payment is nobody's deposit, not even an unmatched one
    expect(await t.platform.db.orm.select().from(unmatchedDeposits).where(eq(unmatchedDeposits.txId, bounced.hash))).toEqual([]);
    // later passes (and a restart: the first pass of a process records it again, and a unique index keeps one) change nothing
    await t.services.sending.transfers.runOnce();
    const setTxs = sim.ledger.closed.flatMap((x) => x.txs).filter((x) => x.tx.Account === service && x.tx.TransactionType === 'AccountSet');
    expect(setTxs).toHaveLength(1);
    expect(setTxs[0].tx).toMatchObject({ SetFlag: 1 });
    expect(await settings()).toHaveLength(1);
    const [row] = await settings();
    expect(await recordAccountSetting(t.platform.db.orm, { chain: 'xrp', livemode: true, token: 'XRP', fromAddress: service, reference: row.reference }, new Date())).toBe(false);
    expect(await settings()).toHaveLength(1);
  });

  it('RequireDest on the merchant\'s payout account and no tag on its payout address: the settlement fails after one pass with the reason, nothing signed', async () => {
    // a merchant whose payout account (on an exchange, say) requires a tag the merchant left out
    const other = await signupAccount(t.app);
    expect((await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(other.accessToken), payload: { enabled: true } })).statusCode).toBe(200);
    const guarded = Wallet.generate().address;
    const added = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(other.accessToken),
      payload: { token: 'XRP', address: guarded, password: other.password },
    });
    expect(added.statusCode).toBe(201);
    payXrp(sim, guarded, 20_000_000n);
    sim.close();
    sim.ledger.accounts.get(guarded)!.flags |= LSF_REQUIRE_DEST_TAG;
    sim.close();
    const p = await createLivePayment(t, { acct: other, addresses: {}, addressIds: {} }, 'XRP');
    payXrp(sim, p.deposit_address, drops(p.crypto_amount), p.destination_tag);
    sim.close();
    await watch();
    const [pending] = await settlementsOf(t, p.id);
    expect(pending).toMatchObject({ status: 'pending', mode: 'direct' });
    // one pass: refused before signing for good (rippled would apply it as tecDST_TAG_NEEDED at every try, its fee burnt)
    await t.services.sending.transfers.runOnce();
    await t.platform.outbox.drainNow();
    const why = 'the destination account requires a destination tag (RequireDest) and the payout address has none';
    const [row] = await t.platform.db.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, pending.id));
    expect(row).toMatchObject({ purpose: 'settlement', status: 'failed', failures: 1, lastError: why });
    expect(await t.platform.db.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, row.id))).toEqual([]);
    const [s] = await settlementsOf(t, p.id);
    expect(s).toMatchObject({ status: 'failed', mode: 'direct', note: why });
    const failedHooks = await t.platform.db.orm.select().from(events).where(and(eq(events.paymentId, p.id), eq(events.type, 'settlement.failed')));
    expect(failedHooks).toHaveLength(1);
  });

  it('a tag no payment holds (a customer\'s typo) is unmatched with that tag, and credits no payment', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'XRP');
    const owed = drops(p.crypto_amount);
    // tags are issued from 100000 up: 7 is nobody's
    const stray = payXrp(sim, p.deposit_address, owed, 7);
    sim.close();
    await watch();
    expect(await getPayment(t.app, acct.liveKey, p.id)).toMatchObject({ status: 'pending', deposits: [] });
    const rows = await t.platform.db.orm.select().from(unmatchedDeposits).where(eq(unmatchedDeposits.txId, stray));
    expect(rows).toEqual([expect.objectContaining({ chain: 'xrp', address: p.deposit_address, destinationTag: 7, amount: owed, paymentId: null })]);
  });

  it('a partial payment counts for what it delivered, never for its Amount', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'XRP');
    const owed = drops(p.crypto_amount);
    injectPartialPayment(sim, p.deposit_address, p.destination_tag, owed, owed / 4n);
    sim.close();
    await watch();
    const read = await getPayment(t.app, acct.liveKey, p.id);
    expect(read.status).toBe('partially_paid');
    expect(drops(read.deposits[0].amount)).toBe(owed / 4n);
  });

  it('the node going away and coming back: the settlement completes once it answers', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'XRP');
    payXrp(sim, p.deposit_address, drops(p.crypto_amount), p.destination_tag);
    sim.close();
    await watch();
    await sim.stop();
    await expect(t.services.sending.transfers.runOnce()).rejects.toThrow();
    // the watcher notes the node down and goes on
    await t.services.watching.runOnce();
    expect(t.services.watching.states().find((x) => x.chain === 'xrp')!.status).not.toBe('ok');
    expect(await completed(p.id)).toBe(false);
    await sim.start();
    await driveUntil(() => completed(p.id));
    const [s] = await settlementsOf(t, p.id);
    expect(sim.ledger.findTx(s.tx_id)!.tx.tx).toMatchObject({ Destination: payout, DestinationTag: PAYOUT_TAG });
  });
});
