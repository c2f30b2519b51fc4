// The settlement executor (spec 1 Settlement modes, direct rules 3, 6, 8; 2 Settlement object):
// test-mode settlement on paper, live custodial purchase, live direct waiting for transfers,
// awaited addresses, rule 6's automatic payout, scheduled payouts, idempotency.
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment, type Member } from '../harness/settlement.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { appendEvent, events } from '../../src/events/index.ts';
import { merchants } from '../../src/accounts/schema.ts';
import { patchMerchant } from '../../src/accounts/admin-merchants.ts';
import type { Actor } from '../../src/audit/index.ts';
import type { Executor } from '../../src/platform/db/index.ts';
import type { SettleInput } from '../../src/settlement/index.ts';
import {
  balances, ledgerEntries, payouts, settlements, NOTE_WAITING_CONVERSION, NOTE_WAITING_TRANSFER, runScheduledPayouts, settlementJson, type TransferRequest,
} from '../../src/settlement/index.ts';
import { dec } from '../../src/money/index.ts';

const HOUR = 3_600_000;
const USDT = (whole: number): bigint => BigInt(Math.round(whole * 1e6));

describeEachDb('settlement executor', (h) => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(new Date('2026-03-02T10:00:00Z')); // a Monday
    t = await startTestApp(h.db(), { clock });
  });
  afterAll(async () => { await t.close(); });
  afterEach(async () => { await expectLedgerHolds(h.db()); });

  const settle = (i: ReturnType<typeof input>) => t.services.settlement.settle(h.db(), i);
  /** Runs `body` with the chain room recording each transfer asked for (`intent_<n>`), then without one again. */
  const recordingTransfers = async (body: (sent: TransferRequest[]) => Promise<void>) => {
    const sent: TransferRequest[] = [];
    t.services.settlement.useTransfers({ send: async (_tx: Executor, req) => { sent.push(req); return `intent_${sent.length}`; } });
    try {
      await body(sent);
    } finally {
      t.services.settlement.useTransfers(null);
    }
  };
  const newMerchant = async (): Promise<{ id: string; owner: Member }> => {
    const acct = await signupAccount(t.app);
    return { id: acct.merchant.id, owner: await addMember(t, acct.merchant.id, 'owner') };
  };
  const addAddress = async (m: { id: string; owner: Member }, livemode: boolean, token: string, address: string) => {
    const actor: Actor = { kind: 'merchant', id: m.owner.userId };
    return t.services.settlement.addresses.add({ merchantId: m.id, userId: m.owner.userId, actor }, livemode, { token, address, password: m.owner.password });
  };
  const balanceOf = async (merchantId: string, livemode: boolean, token: string) => {
    const [b] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, merchantId), eq(balances.livemode, livemode), eq(balances.token, token)));
    return b ? { available: b.available, pending: b.pendingPayout } : { available: 0n, pending: 0n };
  };
  const eventsOf = async (merchantId: string, types: string[]) =>
    h.db().orm.select().from(events).where(and(eq(events.merchantId, merchantId), inArray(events.type, types))).orderBy(events.seq);

  it('settles a test payment on paper to the test payout address (completed, no tx_id), with settlement.completed', async () => {
    const m = await newMerchant();
    await addAddress(m, false, 'USDT_TRC20', ADDR.TRON);
    const p = payment(m.id, { webhook_url: 'https://example.com/hook' });
    const [s] = await settle(input(p, [{ amount: USDT(100), usd: '100' }]));
    const json = settlementJson(s);
    expect(json).toMatchObject({
      payment_id: p.id, livemode: false, mode: 'direct', token: 'USDT_TRC20', chain: 'tron', status: 'completed',
      amount: '100', service_fee: '1', network_fee: '1', conversion_fee: '0', net: '98', usd_value: '100', usd_rate: '1',
      service_fee_usd: '1', network_fee_usd: '1', conversion_fee_usd: '0', net_usd: '98', destination: ADDR.TRON,
    });
    expect(json.tx_id).toBeUndefined();
    expect(json.completed_at).toBe(clock.now().toISOString());
    expect((await balanceOf(m.id, false, 'USDT_TRC20')).available).toBe(0n);
    const evs = await eventsOf(m.id, ['settlement.completed', 'settlement:update']);
    expect(evs.map((e) => e.type)).toEqual(['settlement.completed', 'settlement:update']);
    expect(evs[0]).toMatchObject({ livemode: false, paymentId: p.id, webhookUrl: 'https://example.com/hook' });
    expect(evs[0].data).toEqual(json);
    const entries = await h.db().orm.select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, m.id));
    expect(entries.map((e) => e.type).sort()).toEqual(['fee', 'network_fee', 'payment_credit', 'settlement']);
  });

  it('credits a test payment with no test payout address to the test balance in the coin that arrived', async () => {
    const m = await newMerchant();
    const p = payment(m.id, { token: 'BTC', rate_locked: '60000' });
    const [s] = await settle(input(p, [{ amount: 100_000_000n, usd: '60000' }]));
    expect(s).toMatchObject({ mode: 'custodial', status: 'completed', token: 'BTC', conversion: null, destination: null });
    // 1% service fee, $2 network fee at 60000 rounded up at 8 decimals
    expect(s.serviceFee).toBe(1_000_000n);
    expect(s.networkFee).toBe(3334n);
    expect((await balanceOf(m.id, false, 'BTC')).available).toBe(100_000_000n - 1_000_000n - 3334n);
    expect(await eventsOf(m.id, ['settlement.completed', 'settlement.failed'])).toEqual([]);
    expect((await eventsOf(m.id, ['balance:update'])).at(-1)!.data).toEqual({
      livemode: false, balances: [{ token: 'BTC', chain: 'bitcoin', available: '0.98996666', pending_payout: '0' }],
    });
  });

  it('keeps a custodial merchant\'s test payment in the test balance, never converted', async () => {
    const m = await newMerchant();
    await addAddress(m, false, 'ETH', ADDR.EVM);
    const p = payment(m.id, { token: 'ETH', rate_locked: '3000', settlement: 'custodial' });
    const [s] = await settle(input(p, [{ amount: 10n ** 18n, usd: '3000' }]));
    expect(s).toMatchObject({ mode: 'custodial', status: 'completed', token: 'ETH', conversion: null });
    expect((await balanceOf(m.id, false, 'ETH')).available).toBe(s.net);
  });

  it('buys a live custodial deposit into the USDT_TRC20 balance at market (via platform, 1.5%)', async () => {
    const m = await newMerchant();
    const p = payment(m.id, { livemode: true, token: 'ETH', rate_locked: '3000', settlement: 'custodial' });
    const [s] = await settle(input(p, [{ amount: 10n ** 18n, usd: '3000' }]));
    const json = settlementJson(s);
    expect(json).toMatchObject({ mode: 'custodial', status: 'completed', token: 'ETH', conversion: { via: 'platform', from: 'ETH', to: 'USDT_TRC20', status: 'done' } });
    const bought = BigInt(s.conversion ? (s.conversion as { amount_out: string }).amount_out : '0');
    expect(bought).toBeGreaterThan(0n);
    expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: bought, pending: 0n });
    expect(await balanceOf(m.id, true, 'ETH')).toEqual({ available: 0n, pending: 0n });
    expect(await eventsOf(m.id, ['settlement.completed'])).toEqual([]);
  });

  it('sweeps the whole of a live deposit kept in the balance into the service\'s wallet, fees included', async () => {
    const m = await newMerchant();
    await recordingTransfers(async (sent) => {
      const p = payment(m.id, { livemode: true, token: 'ETH', rate_locked: '3000', settlement: 'custodial', deposit_address: '0xDeposit' });
      const [s] = await settle(input(p, [{ amount: 10n ** 18n, usd: '3000' }]));
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed', transferIntents: ['intent_1'] });
      expect(s.net).toBeLessThan(10n ** 18n);
      expect(sent).toEqual([{ chain: 'ethereum', token: 'ETH', from: '0xDeposit', amount: 10n ** 18n, purpose: 'sweep', reference: s.id }]);
    });
  });

  it('sweeps nothing for a live XRP deposit kept in the balance: it is already on the service\'s address (rule 7)', async () => {
    const m = await newMerchant();
    await recordingTransfers(async (sent) => {
      // an XRP deposit address is the service address (the XRP hot wallet) with the payment's tag: a
      // sweep would be a payment from that address to itself, which the XRP family refuses
      const p = payment(m.id, { livemode: true, token: 'XRP', rate_locked: '2', settlement: 'custodial', deposit_address: 'rServiceAddress' });
      const [s] = await settle(input(p, [{ amount: 50_000_000n, usd: '100' }]));
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed', transferIntents: null });
      expect(sent).toEqual([]);
      expect((await balanceOf(m.id, true, 'USDT_TRC20')).available).toBeGreaterThan(0n);
    });
  });

  it('settles nothing for a deposit of zero units: no held settlement, no ledger entry', async () => {
    const m = await newMerchant();
    const p = payment(m.id);
    expect(await settle(input(p, [{ amount: 0n, usd: '0', tx: 'tx_zero' }]))).toEqual([]);
    const [s] = await settle(input(p, [{ amount: 0n, usd: '0', tx: 'tx_zero' }, { amount: USDT(20), usd: '20', tx: 'tx_real' }]));
    expect(s).toMatchObject({ depositTx: 'tx_real', depositTxs: null, amount: USDT(20) });
    expect((await h.db().orm.select().from(settlements).where(eq(settlements.paymentId, p.id))).map((r) => r.id)).toEqual([s.id]);
    const entries = await h.db().orm.select().from(ledgerEntries).where(eq(ledgerEntries.merchantId, m.id));
    expect(new Set(entries.map((e) => e.reference))).toEqual(new Set([`${p.id}:tx_real`]));
  });

  it('never settles a deposit twice, whoever calls again and with whatever other deposits', async () => {
    const m = await newMerchant();
    const p = payment(m.id);
    const first = input(p, [{ amount: USDT(10), usd: '10', tx: 'tx_a' }, { amount: USDT(15), usd: '15', tx: 'tx_b' }]);
    const [s] = await settle(first);
    expect(s.depositTxs).toEqual(['tx_a', 'tx_b']);
    expect(settlementJson(s)).toMatchObject({ deposit_tx: 'tx_a', deposit_txs: ['tx_a', 'tx_b'], amount: '25' });
    expect(await settle(first)).toEqual([]);
    await Promise.all([settle(first), settle(first)]);
    const late = await settle(input(p, [{ amount: USDT(10), usd: '10', tx: 'tx_a' }, { amount: USDT(15), usd: '15', tx: 'tx_b' }, { amount: USDT(5), usd: '5', tx: 'tx_late' }]));
    expect(late.map((x) => x.depositTx)).toEqual(['tx_late']);
    const rows = await h.db().orm.select().from(settlements).where(eq(settlements.paymentId, p.id));
    expect(rows).toHaveLength(2);
    const credits = await h.db().orm.select().from(ledgerEntries).where(and(eq(ledgerEntries.merchantId, m.id), eq(ledgerEntries.type, 'payment_credit')));
    expect(credits.map((c) => c.amount).sort()).toEqual([USDT(25), USDT(5)].sort());
    // the payment's trail sections
    const trail = await t.services.settlement.trailSettlements(p.id) as { settlement: { id: string }; transfers: unknown[] }[];
    expect(trail.map((x) => x.settlement.id).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(trail.every((x) => Array.isArray(x.transfers))).toBe(true);
    const ledger = await t.services.settlement.trailLedger(p.id) as { type: string; reference: string }[];
    expect(ledger.filter((e) => e.type === 'payment_credit').map((e) => e.reference).sort()).toEqual([`${p.id}:tx_a`, `${p.id}:tx_late`]);
  });

  it('keeps a live direct settlement pending until the chain transfer service exists, then sends through it', async () => {
    const m = await newMerchant();
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    const p = payment(m.id, { livemode: true, webhook_url: 'https://example.com/own' });
    const [waiting] = await settle(input(p, [{ amount: USDT(50), usd: '50' }]));
    expect(waiting).toMatchObject({ mode: 'direct', status: 'pending', note: NOTE_WAITING_TRANSFER, destination: ADDR.TRON, txId: null, transferIntents: null });

    await recordingTransfers(async (sent) => {
      const p2 = payment(m.id, { livemode: true, deposit_address: 'TDeposit' });
      const [s] = await settle(input(p2, [{ amount: USDT(50), usd: '50' }]));
      expect(s).toMatchObject({ status: 'pending', note: null, transferIntents: ['intent_1', 'intent_2'] });
      expect(sent.map((r) => [r.token, r.to, r.amount, r.from])).toEqual([
        ['USDT_TRC20', ADDR.TRON, s.net, 'TDeposit'], ['USDT_TRC20', undefined, s.serviceFee + s.networkFee, 'TDeposit'],
      ]);
      // the one that waited for the transfer service is sent at the next pass
      await t.services.settlement.replanDue();
      const [sentLater] = await h.db().orm.select().from(settlements).where(eq(settlements.id, waiting.id));
      expect(sentLater).toMatchObject({ status: 'pending', note: null, transferIntents: ['intent_3', 'intent_4'] });
      expect(sent.slice(2).map((r) => [r.token, r.to, r.amount])).toEqual([['USDT_TRC20', ADDR.TRON, waiting.net], ['USDT_TRC20', undefined, waiting.serviceFee + waiting.networkFee]]);
      await t.services.settlement.replanDue();
      expect(sent).toHaveLength(4);
      const done = await h.db().transaction((tx) => t.services.settlement.completeSettlement(tx, waiting.id, '0xabc'));
      expect(settlementJson(done)).toMatchObject({ status: 'completed', tx_id: '0xabc', completed_at: clock.now().toISOString() });
      const hooks = await eventsOf(m.id, ['settlement.completed']);
      expect(hooks).toHaveLength(1);
      expect(hooks[0]).toMatchObject({ livemode: true, webhookUrl: 'https://example.com/own' });
      const failed = await h.db().transaction((tx) => t.services.settlement.failSettlement(tx, s.id, 'node refused the transfer'));
      expect(failed.status).toBe('failed');
      expect((await eventsOf(m.id, ['settlement.failed'])).map((e) => (e.data as { note: string }).note)).toEqual(['node refused the transfer']);
    });
  });

  it('waits for a changed address (awaits_address), then settles to it once active; deletion settles without it', async () => {
    const m = await newMerchant();
    const a = await addAddress(m, true, 'USDT_BEP20', ADDR.EVM);
    expect(await t.services.settlement.payoutAddressInputs(m.id, true)).toEqual([
      { id: a.id, token: 'USDT_BEP20', address: ADDR.EVM, default: true, created_at: a.createdAt, active_at: a.activeAt },
    ]);
    await t.services.settlement.addresses.update({ merchantId: m.id, userId: m.owner.userId, actor: { kind: 'merchant' } }, a.id, { address: ADDR.EVM_2, password: m.owner.password });
    const p = payment(m.id, { livemode: true, token: 'USDT_BEP20' });
    const [s] = await settle(input(p, [{ amount: 30n * 10n ** 18n, usd: '30' }], clock.now()));
    expect(s.status).toBe('pending');
    expect(settlementJson(s).awaits_address).toEqual({ until: new Date(clock.now().getTime() + 24 * HOUR).toISOString() });
    expect(await t.services.settlement.replanDue()).toBe(0);
    clock.advance(24 * HOUR);
    expect(await t.services.settlement.replanDue()).toBe(1);
    const [again] = await h.db().orm.select().from(settlements).where(eq(settlements.id, s.id));
    expect(again).toMatchObject({ status: 'pending', destination: ADDR.EVM_2, awaitsUntil: null, replanAt: null, note: NOTE_WAITING_TRANSFER });
    expect(await h.db().orm.select().from(settlements).where(eq(settlements.paymentId, p.id))).toHaveLength(1);

    // a second coin waiting, whose address is then deleted: settled as if there were no address (rule 6 fallback)
    const x = await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    await t.services.settlement.addresses.update({ merchantId: m.id, userId: m.owner.userId, actor: { kind: 'merchant' } }, x.id, { address: ADDR.TRON_2, password: m.owner.password });
    const p2 = payment(m.id, { livemode: true, token: 'USDT_TRC20' });
    const [w] = await settle(input(p2, [{ amount: USDT(30), usd: '30' }], clock.now()));
    expect(w.awaitsUntil).not.toBeNull();
    await t.services.settlement.addresses.remove({ merchantId: m.id, userId: m.owner.userId, actor: { kind: 'merchant' } }, x.id);
    expect(await t.services.settlement.replanDue()).toBe(1);
    const [moved] = await h.db().orm.select().from(settlements).where(eq(settlements.id, w.id));
    expect(moved.awaitsUntil).toBeNull();
    expect(moved.status).not.toBe('held');
    expect(moved.destination).toBe(ADDR.EVM_2);
    expect((moved.conversion as { via: string }).via).toBe('exchange');
    // nothing carries out an exchange yet: it waits for that, not for a transfer
    expect(moved.note).toBe(NOTE_WAITING_CONVERSION);
  });

  it('keeps an unconvertible live deposit in the USDT balance and pays it out automatically from $10 (rule 6)', async () => {
    const m = await newMerchant();
    await addAddress(m, true, 'USDT_BEP20', ADDR.EVM);
    const small = () => payment(m.id, { livemode: true, token: 'USDT_TRC20' });
    // $10 is under the exchange minimum with its margin: kept in the balance, under $10 after fees it waits
    const [s1] = await settle(input(small(), [{ amount: USDT(10), usd: '10' }]));
    expect(s1).toMatchObject({ mode: 'custodial', status: 'completed' });
    expect(s1.note).toBe('too small for the exchange minimum');
    const after1 = await balanceOf(m.id, true, 'USDT_TRC20');
    expect(after1.available).toBe(s1.net);
    expect(await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).toEqual([]);
    const [s2] = await settle(input(small(), [{ amount: USDT(10), usd: '10' }]));
    const [auto] = await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id));
    expect(auto).toMatchObject({ requestedBy: 'auto', status: 'requested', token: 'USDT_BEP20', fromToken: 'USDT_TRC20', amount: s1.net + s2.net });
    expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: 0n, pending: s1.net + s2.net });
  });

  it('settles a deposit whose rule 6 payout the network fee would take all of; the balance waits for more', async () => {
    const m = await newMerchant();
    await addAddress(m, true, 'USDT_BEP20', ADDR.EVM);
    const market = t.services.settlement.market;
    const real = market.snapshot.bind(market);
    // sending on BNB Smart Chain costs $50 today: more than the whole balance
    const dear = vi.spyOn(market, 'snapshot').mockImplementation((live) => ({ ...real(live), USDT_BEP20: { ...real(live).USDT_BEP20, networkFeeUsd: dec(50) } }));
    try {
      const small = () => payment(m.id, { livemode: true, token: 'USDT_TRC20' });
      const [s1] = await settle(input(small(), [{ amount: USDT(10), usd: '10' }]));
      const [s2] = await settle(input(small(), [{ amount: USDT(10), usd: '10' }]));
      expect([s1.status, s2.status]).toEqual(['completed', 'completed']);
      expect(await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).toEqual([]);
      expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: s1.net + s2.net, pending: 0n });
    } finally {
      dear.mockRestore();
    }
  });

  it('pays a fallback balance out automatically once a USDT address is in use, from exactly $10 and not a cent less (rule 6, later)', async () => {
    const m = await newMerchant();
    const admin: Actor = { kind: 'admin' };
    // no payout address at all: the live deposit is kept in the USDT balance
    const [s] = await settle(input(payment(m.id, { livemode: true }), [{ amount: USDT(5), usd: '5' }]));
    expect(s).toMatchObject({ mode: 'custodial', status: 'completed' });
    const topUp = USDT(10) - USDT(0.01) - s.net;
    await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: (Number(topUp) / 1e6).toFixed(6), note: 'top up' }, admin);
    await addAddress(m, true, 'USDT_BEP20', ADDR.EVM);
    await t.services.settlement.replanDue();
    expect(await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).toEqual([]);
    await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '0.01', note: 'top up' }, admin);
    await t.services.settlement.replanDue();
    const made = await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id));
    expect(made).toMatchObject([{ requestedBy: 'auto', status: 'requested', token: 'USDT_BEP20', fromToken: 'USDT_TRC20', amount: USDT(10) }]);
    expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: 0n, pending: USDT(10) });
  });

  it('requests no automatic payout for a suspended merchant (instant, rule 6); once reinstated the next run pays the whole balance', async () => {
    const admin: Actor = { kind: 'admin' };
    const setStatus = (id: string, status: string) => patchMerchant(h.db(), id, { status }, admin, clock.now());
    const payoutsOf = (id: string) => h.db().orm.select().from(payouts).where(eq(payouts.merchantId, id));

    // a scheduled merchant paid out after each credit
    const inst = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'instant' }).where(eq(merchants.id, inst.id));
    await addAddress(inst, true, 'USDT_TRC20', ADDR.TRON);
    await setStatus(inst.id, 'suspended');
    const [credit] = await settle(input(payment(inst.id, { livemode: true, settlement: 'scheduled' }), [{ amount: USDT(20), usd: '20' }]));
    expect(credit).toMatchObject({ mode: 'custodial', status: 'completed' });
    expect(await payoutsOf(inst.id)).toEqual([]);
    clock.advance(HOUR);
    expect((await t.services.settlement.runScheduledPayouts()).filter((x) => x.merchantId === inst.id)).toEqual([]);
    expect(await balanceOf(inst.id, true, 'USDT_TRC20')).toEqual({ available: credit.net, pending: 0n });

    // a direct merchant whose unconvertible deposits are kept in the USDT balance (rule 6)
    const direct = await newMerchant();
    await addAddress(direct, true, 'USDT_BEP20', ADDR.EVM);
    await setStatus(direct.id, 'suspended');
    const small = () => payment(direct.id, { livemode: true, token: 'USDT_TRC20' });
    const [s1] = await settle(input(small(), [{ amount: USDT(10), usd: '10' }]));
    const [s2] = await settle(input(small(), [{ amount: USDT(10), usd: '10' }]));
    expect([s1.mode, s2.mode]).toEqual(['custodial', 'custodial']);
    await t.services.settlement.replanDue();
    expect(await payoutsOf(direct.id)).toEqual([]);
    expect(await balanceOf(direct.id, true, 'USDT_TRC20')).toEqual({ available: s1.net + s2.net, pending: 0n });

    // reinstated: the next runs request all of it, as if the payouts had only waited
    await setStatus(inst.id, 'active');
    await setStatus(direct.id, 'active');
    clock.advance(HOUR);
    expect((await t.services.settlement.runScheduledPayouts()).filter((x) => x.merchantId === inst.id))
      .toMatchObject([{ requestedBy: 'scheduler', status: 'requested', token: 'USDT_TRC20', amount: credit.net }]);
    await t.services.settlement.replanDue();
    expect(await payoutsOf(direct.id)).toMatchObject([{ requestedBy: 'auto', status: 'requested', token: 'USDT_BEP20', amount: s1.net + s2.net }]);
    expect(await balanceOf(direct.id, true, 'USDT_TRC20')).toEqual({ available: 0n, pending: s1.net + s2.net });
  });

  it('a payment made while scheduled and settled after the merchant turned custodial credits the balance and pays nothing out, instant schedule or not', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'instant' }).where(eq(merchants.id, m.id));
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    const made = payment(m.id, { livemode: true, settlement: 'scheduled' });
    // custodial now: the balance is the merchant's to pay out by hand (the hourly run skips them too)
    await h.db().orm.update(merchants).set({ settlement: 'custodial' }).where(eq(merchants.id, m.id));
    const [credit] = await settle(input(made, [{ amount: USDT(20), usd: '20' }]));
    expect(credit).toMatchObject({ mode: 'custodial', status: 'completed' });
    expect(await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).toEqual([]);
    expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: credit.net, pending: 0n });
  });

  it('pays a scheduled merchant\'s balance out daily from $10, instant ones after each credit', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'daily' }).where(eq(merchants.id, m.id));
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    const p = () => payment(m.id, { livemode: true, settlement: 'scheduled' });
    await settle(input(p(), [{ amount: USDT(5), usd: '5' }]));
    expect((await t.services.settlement.runScheduledPayouts()).filter((x) => x.merchantId === m.id)).toEqual([]);
    const [mer0] = await h.db().orm.select().from(merchants).where(eq(merchants.id, m.id));
    expect(mer0.payoutScheduledAt).toBeNull();
    await settle(input(p(), [{ amount: USDT(20), usd: '20' }]));
    const bal = await balanceOf(m.id, true, 'USDT_TRC20');
    const made = (await t.services.settlement.runScheduledPayouts()).filter((x) => x.merchantId === m.id);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ requestedBy: 'scheduler', amount: bal.available, token: 'USDT_TRC20', status: 'requested' });
    const [mer1] = await h.db().orm.select().from(merchants).where(eq(merchants.id, m.id));
    expect(mer1.payoutScheduledAt).toEqual(clock.now());
    // once a day
    await settle(input(p(), [{ amount: USDT(20), usd: '20' }]));
    expect((await t.services.settlement.runScheduledPayouts()).filter((x) => x.merchantId === m.id)).toEqual([]);

    await h.db().orm.update(merchants).set({ payoutSchedule: 'instant' }).where(eq(merchants.id, m.id));
    await settle(input(p(), [{ amount: USDT(20), usd: '20' }]));
    const all = await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id));
    expect(all).toHaveLength(2);
    expect(await balanceOf(m.id, true, 'USDT_TRC20')).toMatchObject({ available: 0n });
  });

  it('an instant payout the merchant cancels or the operator rejects is not requested again by the hourly run, only after a new credit', async () => {
    const admin: Actor = { kind: 'admin' };
    for (const verb of ['cancel', 'reject'] as const) {
      const m = await newMerchant();
      await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'instant' }).where(eq(merchants.id, m.id));
      await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
      const p = () => payment(m.id, { livemode: true, settlement: 'scheduled' });
      const mine = async () => (await runScheduledPayouts(h.db(), t.services.settlement.market.snapshot(true), t.services.settlement.deps.ownAddresses, clock.now())).filter((x) => x.merchantId === m.id);
      await settle(input(p(), [{ amount: USDT(20), usd: '20' }]));
      const [made] = await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id));
      expect(made).toMatchObject({ requestedBy: 'scheduler', status: 'requested' });
      clock.advance(60_000);
      if (verb === 'cancel') await t.services.settlement.payouts.cancel(m.id, m.owner.userId, { kind: 'merchant', id: m.owner.userId }, made.id);
      else await t.services.settlement.payouts.review(made.id, { note: 'address under review' }, 'rejected', admin);
      // the amount is back in the balance, and stays there through the hourly runs
      for (let i = 0; i < 3; i++) {
        clock.advance(HOUR);
        expect(await mine()).toEqual([]);
      }
      expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: made.amount, pending: 0n });
      // a new credit (here the operator's, which makes no payout of its own): the next run pays all of it
      await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '5', note: 'credit' }, admin);
      clock.advance(HOUR);
      expect(await mine()).toMatchObject([{ requestedBy: 'scheduler', amount: made.amount + USDT(5) }]);
      clock.advance(HOUR);
      expect(await mine()).toEqual([]);
      expect((await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).map((x) => x.status).sort())
        .toEqual([verb === 'cancel' ? 'canceled' : 'rejected', 'requested']);
    }
  });

  it('pays an instant merchant out as soon as a credit that waited for a market price is made, not at the next hourly run', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'instant' }).where(eq(merchants.id, m.id));
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    // BTC has no current price when the payment closes: its purchase into the balance waits for one
    const market = t.services.settlement.market;
    const real = market.snapshot.bind(market);
    const stale = vi.spyOn(market, 'snapshot').mockImplementation((live) => ({ ...real(live), BTC: { ...real(live).BTC, status: 'stale' } }));
    let waiting: Awaited<ReturnType<typeof settle>>[number];
    try {
      [waiting] = await settle(input(payment(m.id, { livemode: true, token: 'BTC', rate_locked: '60000', settlement: 'scheduled' }), [{ amount: 100_000n, usd: '60' }], clock.now()));
    } finally {
      stale.mockRestore();
    }
    expect(waiting).toMatchObject({ status: 'pending', note: 'waiting for a current market price' });
    expect(await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).toEqual([]);
    // the price is back: the minute's replan credits the balance, and the credit is paid out at once
    clock.advance(61_000);
    await t.services.settlement.replanDue();
    const [done] = await h.db().orm.select().from(settlements).where(eq(settlements.id, waiting.id));
    expect(done).toMatchObject({ status: 'completed', mode: 'custodial' });
    const credited = BigInt((done.conversion as { amount_out: string }).amount_out);
    const made = await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id));
    expect(made).toMatchObject([{ requestedBy: 'scheduler', status: 'requested', token: 'USDT_TRC20', amount: credited }]);
    expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: 0n, pending: credited });
  });

  it('an instant payout the merchant canceled is not requested again by a settlement that credits nothing (held, smaller than its fees)', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'instant' }).where(eq(merchants.id, m.id));
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    const p = () => payment(m.id, { livemode: true, settlement: 'scheduled' });
    await settle(input(p(), [{ amount: USDT(20), usd: '20' }]));
    const [made] = await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id));
    expect(made).toMatchObject({ requestedBy: 'scheduler', status: 'requested' });
    clock.advance(60_000);
    await t.services.settlement.payouts.cancel(m.id, m.owner.userId, { kind: 'merchant', id: m.owner.userId }, made.id);
    // a payment smaller than its fees: held, nothing credited, so no payout per credited payment
    clock.advance(60_000);
    const [held] = await settle(input(p(), [{ amount: USDT(0.5), usd: '0.5' }]));
    expect(held).toMatchObject({ status: 'held' });
    expect((await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).map((x) => x.status)).toEqual(['canceled']);
    expect(await balanceOf(m.id, true, 'USDT_TRC20')).toEqual({ available: made.amount, pending: 0n });
  });

  it('makes a weekly payout the Monday run missed at the next run, once, then waits for the next Monday', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'weekly', payoutScheduledAt: new Date('2026-02-23T00:30:00Z') })
      .where(eq(merchants.id, m.id));
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '40', note: 'funding' }, { kind: 'admin' });
    const market = t.services.settlement.market.snapshot(true);
    // `since`: the hourly tick the run is for, or the first one it makes up for (recurring.ts)
    const run = async (now: string, since = now) => (await runScheduledPayouts(h.db(), market, t.services.settlement.deps.ownAddresses, new Date(now), new Date(since))).filter((x) => x.merchantId === m.id);
    // the service down from Sunday 1 March 22:30 to Wednesday: Wednesday's first run covers Monday's
    // ticks and pays the week's payout
    expect(await run('2026-03-04T09:00:00Z', '2026-03-01T23:00:00Z')).toMatchObject([{ requestedBy: 'scheduler', amount: USDT(40) }]);
    await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '40', note: 'funding' }, { kind: 'admin' });
    expect(await run('2026-03-04T10:00:00Z')).toEqual([]);
    expect(await run('2026-03-08T23:00:00Z')).toEqual([]);
    expect(await run('2026-03-09T00:00:00Z')).toMatchObject([{ amount: USDT(40) }]);
  });

  it('keeps weekly payouts to Mondays while the service runs: a balance that reaches the minimum on Thursday waits for Monday', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'weekly', payoutScheduledAt: null }).where(eq(merchants.id, m.id));
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '5', note: 'funding' }, { kind: 'admin' });
    const market = t.services.settlement.market.snapshot(true);
    const run = async (now: string) => (await runScheduledPayouts(h.db(), market, t.services.settlement.deps.ownAddresses, new Date(now), new Date(now))).filter((x) => x.merchantId === m.id);
    // Monday 2 March: under the $10 minimum, it waits
    expect(await run('2026-03-02T10:00:00Z')).toEqual([]);
    await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '35', note: 'funding' }, { kind: 'admin' });
    // Thursday, and a weekly merchant never paid before on a Tuesday: not a Monday
    expect(await run('2026-03-05T10:00:00Z')).toEqual([]);
    expect(await run('2026-03-08T23:00:00Z')).toEqual([]);
    expect(await run('2026-03-09T00:00:00Z')).toMatchObject([{ requestedBy: 'scheduler', amount: USDT(40) }]);
    expect(await run('2026-03-09T01:00:00Z')).toEqual([]);
  });

  it('makes a scheduled payout from exactly $10 and not from $9.999999 (spec 8 minimum payout)', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'daily', payoutScheduledAt: null }).where(eq(merchants.id, m.id));
    await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
    const fund = (amount: string) => t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount, note: 'funding' }, { kind: 'admin' });
    const market = t.services.settlement.market.snapshot(true);
    const run = async () => (await runScheduledPayouts(h.db(), market, t.services.settlement.deps.ownAddresses, clock.now(), clock.now())).filter((x) => x.merchantId === m.id);
    await fund('9.999999');
    expect(await run()).toEqual([]);
    await fund('0.000001');
    expect(await run()).toMatchObject([{ requestedBy: 'scheduler', amount: USDT(10), token: 'USDT_TRC20' }]);
  });

  it('a scheduled payout whose network fee would take all of it waits, and the pass goes on to the other merchants', async () => {
    const admin: Actor = { kind: 'admin' };
    const scheduled = async (usdt: string) => {
      const m = await newMerchant();
      await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'daily' }).where(eq(merchants.id, m.id));
      await addAddress(m, true, 'USDT_TRC20', ADDR.TRON);
      await t.services.settlement.adjust({ merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: usdt, note: 'funding' }, admin);
      return m;
    };
    const small = await scheduled('15');
    const large = await scheduled('30');
    const live = t.services.settlement.market.snapshot(true);
    // a $20 network fee: more than the first balance holds
    const market = { ...live, USDT_TRC20: { ...live.USDT_TRC20, networkFeeUsd: dec(20) } };
    const made = await runScheduledPayouts(h.db(), market, t.services.settlement.deps.ownAddresses, clock.now());
    expect(made.filter((p) => p.merchantId === small.id)).toEqual([]);
    expect(made.filter((p) => p.merchantId === large.id)).toMatchObject([{ amount: USDT(30), networkFee: USDT(20), sendAmount: USDT(10) }]);
    expect(await balanceOf(small.id, true, 'USDT_TRC20')).toEqual({ available: USDT(15), pending: 0n });
  });

  it('settles closed payments from the outbox through the DepositsPort, once however often they close', async () => {
    const m = await newMerchant();
    const p = payment(m.id, { token: 'TRX', rate_locked: '0.25' });
    const known = new Map<string, SettleInput>([[p.id, input(p, [{ amount: 400_000_000n, usd: '100', tx: 'tx_trx' }])]]);
    const asked: string[] = [];
    const { outbox } = t.platform;
    outbox.subscribe(t.services.settlement.subscriber(async (_tx, id) => { asked.push(id); return known.get(id) ?? null; }));
    await h.db().transaction(async (tx) => {
      await appendEvent(tx, { type: 'payment.detecting', livemode: false, merchantId: m.id, paymentId: p.id, data: {}, at: clock.now() });
      await appendEvent(tx, { type: 'payment.confirmed', livemode: false, merchantId: m.id, paymentId: p.id, data: {}, at: clock.now() });
      await appendEvent(tx, { type: 'payment.expired', livemode: false, merchantId: m.id, paymentId: 'pay_unknown', data: {}, at: clock.now() });
    });
    await outbox.drainNow();
    await h.db().transaction((tx) => appendEvent(tx, { type: 'payment.late_deposit', livemode: false, merchantId: m.id, paymentId: p.id, data: {}, at: clock.now() }));
    await outbox.drainNow();
    expect(asked.filter((id) => id === p.id)).toHaveLength(2);
    expect(asked).toContain('pay_unknown');
    const rows = await h.db().orm.select().from(settlements).where(eq(settlements.paymentId, p.id));
    expect(rows.map((r) => [r.token, r.status, r.mode])).toEqual([['TRX', 'completed', 'custodial']]);
    expect((await balanceOf(m.id, false, 'TRX')).available).toBe(rows[0].net);
  });
});
