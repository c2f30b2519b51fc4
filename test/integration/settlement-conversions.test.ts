// The steps of a live treasury conversion (src/settlement/conversions.ts) against the real
// database, with a stand-in transfer service of the chain room whose chains and transfer states
// the test sets: which chains can send decides between waiting and rule 6; a sweep given up fails
// the settlement, which the operator retries or returns; a payout to XRP carries the address's tag;
// a destination the gateway refuses by now is paid nothing (what was bought stays in the balance).
// The whole path on real nodes is in chain-convert.test.ts.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, tokenHeader } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment, type Member } from '../harness/settlement.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { Executor } from '../../src/platform/db/index.ts';
import type { Actor } from '../../src/audit/index.ts';
import type { Chain } from '../../src/config.ts';
import {
  balances, ledgerEntries, payoutAddresses, settlements, NOTE_WAITING_CONVERSION, type TransferPort, type TransferRequest, type TransferState,
} from '../../src/settlement/index.ts';
import { NOTE_CONVERTING } from '../../src/settlement/settlement-writer.ts';
import { completeSettlement, failSettlement } from '../../src/settlement/executor.ts';
import { NOTE_CANNOT_PAY_OUT } from '../../src/settlement/routing.ts';
import { NOTE_CONVERSION_WAITING_PRICE, noteSweepFailed } from '../../src/settlement/conversions.ts';
import type { StoredConversion } from '../../src/settlement/json.ts';
import type { MarketData } from '../../src/market/index.ts';
import { notifications } from '../../src/notifications/index.ts';
import { events } from '../../src/events/index.ts';
import { formatUnits } from '../../src/money/index.ts';

const ETH = (whole: number): bigint => BigInt(whole) * 10n ** 18n;
const OPERATOR: Actor = { kind: 'admin' };
const ADMIN = { authorization: 'Bearer test-admin-token' };
const USDT_ERC20_CONTRACT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const CONTRACT_REFUSAL = 'address is the USDT_ERC20 token contract: tokens sent there are lost';

/** The chain room as far as conversions see it: recorded requests, chains that can send, states the test sets. */
class StandInTransfers implements TransferPort {
  readonly sent: TransferRequest[] = [];
  readonly states = new Map<string, TransferState>();
  /** The reference each id was recorded for. */
  readonly references = new Map<string, string>();
  chains = new Set<Chain>();
  retried = 0;
  /**
   * Ids are `<prefix><n>`: every stand-in numbers from 1, and the pass reads the settlements other
   * tests left pending with it too; a test that sets a state they would read takes ids of its own.
   */
  prefix = 'trf_';
  supports(chain: Chain): boolean { return this.chains.has(chain); }
  async send(_tx: Executor, req: TransferRequest): Promise<string> {
    this.sent.push(req);
    const id = `${this.prefix}${this.sent.length}`;
    this.states.set(id, { status: 'pending', waiting_funds: false });
    this.references.set(id, req.reference);
    return id;
  }
  async state(_tx: Executor, id: string): Promise<TransferState | null> { return this.states.get(id) ?? null; }
  /** Transfers with a signed transaction (the chain room can no longer call them back); canceled ones. */
  readonly signed = new Set<string>();
  readonly canceled: string[] = [];
  async cancel(_tx: Executor, reference: string, only?: string): Promise<boolean> {
    const ids = [...this.states.keys()].filter((id) => this.references.get(id) === reference && (only === undefined || id === only));
    if ((only !== undefined && ids.length === 0) || ids.some((id) => this.signed.has(id) || this.states.get(id)!.status === 'final')) return false;
    for (const id of ids.filter((i) => this.states.get(i)!.status === 'pending')) {
      this.states.set(id, { status: 'failed', waiting_funds: false, why: 'canceled' });
      this.canceled.push(id);
    }
    return true;
  }
  async retry(_tx: Executor, reference: string): Promise<number> {
    let n = 0;
    for (const [id, s] of this.states) {
      if (s.status === 'failed' && this.references.get(id) === reference) { this.states.set(id, { status: 'pending', waiting_funds: false }); n++; }
    }
    this.retried += n;
    return n;
  }
}

describeEachDb('settlement conversions', (h) => {
  let t: TestApp;
  let port: StandInTransfers;
  const clock = new ManualClock(new Date('2026-03-02T10:00:00Z'));
  // what the service logs at warn and above, one JSON line each
  const logged: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock, log: createLogger('warn', { write: (line: string) => { logged.push(line); } }) });
  });
  afterAll(async () => { await t.close(); });
  afterEach(async () => {
    t.services.settlement.useTransfers(null);
    await expectLedgerHolds(h.db());
  });

  const use = (...chains: Chain[]): StandInTransfers => {
    port = new StandInTransfers();
    port.chains = new Set(chains);
    t.services.settlement.useTransfers(port);
    return port;
  };
  const newMerchant = async (): Promise<{ id: string; owner: Member }> => {
    const acct = await signupAccount(t.app);
    return { id: acct.merchant.id, owner: await addMember(t, acct.merchant.id, 'owner') };
  };
  const addAddress = async (m: { id: string; owner: Member }, token: string, address: string, tag?: number) => {
    const actor: Actor = { kind: 'merchant', id: m.owner.userId };
    return t.services.settlement.addresses.add({ merchantId: m.id, userId: m.owner.userId, actor }, true, { token, address, password: m.owner.password, ...(tag !== undefined ? { tag } : {}) });
  };
  const ethPayment = (merchantId: string) => payment(merchantId, { livemode: true, token: 'ETH', rate_locked: '3000', deposit_address: '0x00000000000000000000000000000000000000d1' });
  const row = async (id: string) => (await h.db().orm.select().from(settlements).where(eq(settlements.id, id)))[0];
  const entriesOf = (paymentId: string) => h.db().orm.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, paymentId));

  it(`a payout coin on a chain the service cannot send on is no target: rule 6 with "${NOTE_CANNOT_PAY_OUT}", the deposit swept`, async () => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_TRC20', ADDR.TRON);
    const p = use('ethereum');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    expect(s).toMatchObject({ mode: 'custodial', status: 'completed', note: NOTE_CANNOT_PAY_OUT });
    expect(p.sent.map((r) => [r.purpose, r.chain, r.token, r.amount])).toEqual([['sweep', 'ethereum', 'ETH', ETH(1)]]);
    expect((await entriesOf(s.paymentId)).some((e) => e.type === 'conversion_in' && e.token === 'USDT_TRC20')).toBe(true);
  });

  it(`waits with "${NOTE_WAITING_CONVERSION}" while the deposit's chain cannot send, then starts with the sweep`, async () => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use();
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    expect(s).toMatchObject({ mode: 'direct', status: 'pending', note: NOTE_WAITING_CONVERSION, transferIntents: null });
    expect((s.conversion as StoredConversion)).toMatchObject({ via: 'swap', status: 'pending', treasury: true });
    expect(await entriesOf(s.paymentId)).toEqual([]);
    expect(await t.services.settlement.advanceConversions()).toBe(0);
    p.chains.add('ethereum');
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    const started = await row(s.id);
    expect(started).toMatchObject({ status: 'pending', note: NOTE_CONVERTING, transferIntents: ['trf_1'] });
    expect(p.sent).toEqual([{ chain: 'ethereum', token: 'ETH', from: '0x00000000000000000000000000000000000000d1', amount: ETH(1), purpose: 'sweep', reference: s.id }]);
    // nothing moves while the sweep is not final, however often it is looked at
    expect(await t.services.settlement.advanceConversions()).toBe(0);
    p.states.set('trf_1', { status: 'final', waiting_funds: false, tx_id: '0xsweep' });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    const c = (await row(s.id)).conversion as StoredConversion;
    expect(p.sent[1]).toEqual({ chain: 'ethereum', token: 'USDT_ERC20', to: ADDR.EVM, amount: BigInt(c.amount_out), purpose: 'settlement', reference: s.id });
    expect((await entriesOf(s.paymentId)).map((e) => e.type).sort()).toEqual(['conversion_fee', 'conversion_in', 'conversion_out', 'fee', 'network_fee', 'payment_credit', 'settlement']);
    // told by the chain room that the payout is final: completed, conversion done
    const done = await h.db().transaction((tx) => t.services.settlement.completeSettlement(tx, s.id, '0xpayout'));
    expect(done).toMatchObject({ status: 'completed', txId: '0xpayout', note: null });
    expect((done.conversion as StoredConversion).status).toBe('done');
    expect(await t.services.settlement.advanceConversions()).toBe(0);
    expect(p.sent).toHaveLength(2);
  });

  it('a conversion paid out on a Bitcoin-family chain keeps its fees: the payout\'s mined fee (in that chain\'s coin) is not the settlement\'s network fee', async () => {
    const m = await newMerchant();
    await addAddress(m, 'BTC', ADDR.BTC);
    const p = use('ethereum', 'bitcoin');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    expect((s.conversion as StoredConversion)).toMatchObject({ via: 'exchange', to: 'BTC', treasury: true });
    p.states.set('trf_1', { status: 'final', waiting_funds: false, tx_id: '0xsweep' });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(p.sent[1]).toMatchObject({ chain: 'bitcoin', token: 'BTC', purpose: 'settlement' });
    const before = await row(s.id);
    // the chain room completes it with the BTC payout's mined fee, 1,234 satoshis
    const done = await h.db().transaction((tx) => completeSettlement(tx, s.id, 'btcpayout', new Date('2026-03-02T11:00:00Z'), { networkFee: 1234n }));
    expect(done.status).toBe('completed');
    expect([done.serviceFee, done.networkFee, done.serviceFeeUsd.toFixed(), done.networkFeeUsd.toFixed()])
      .toEqual([before.serviceFee, before.networkFee, before.serviceFeeUsd.toFixed(), before.networkFeeUsd.toFixed()]);
  });

  it('a sweep given up fails the settlement; the operator retries it, then returns it to the balance', async () => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use('ethereum');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    p.states.set('trf_1', { status: 'failed', waiting_funds: false, why: 'node refused it' });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(await row(s.id)).toMatchObject({ status: 'failed', note: noteSweepFailed('node refused it') });
    const retried = await t.services.settlement.retry(s.id, OPERATOR);
    expect(retried).toMatchObject({ status: 'pending', note: null });
    expect(p.retried).toBe(1);
    p.states.set('trf_1', { status: 'failed', waiting_funds: false, why: 'node refused it again' });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    const returned = await t.services.settlement.returnToBalance(s.id, { note: 'kept for the merchant' }, OPERATOR);
    expect(returned).toMatchObject({ status: 'completed', mode: 'custodial' });
    // its entries come first, then the return of what the conversion was to buy
    const entries = await entriesOf(s.paymentId);
    const c = returned.conversion as StoredConversion;
    expect(entries.find((e) => e.type === 'settlement_return')).toMatchObject({ token: 'USDT_ERC20', amount: BigInt(c.amount_out) });
    expect(entries.filter((e) => e.type === 'payment_credit')).toHaveLength(1);
    // the sweep is tried again (the coins go to the service's wallet), no payout is ever made
    expect(p.retried).toBe(2);
    expect(p.sent.map((r) => r.purpose)).toEqual(['sweep']);
  });

  it.each(['sweep', 'payout'] as const)('returned by the operator after its %s was given up: the settlement no longer claims a conversion under way, its conversion reads done (what it was to buy is in the balance)', async (step) => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use('ethereum');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    if (step === 'sweep') {
      p.states.set('trf_1', { status: 'failed', waiting_funds: false, why: 'node refused it' });
      expect(await t.services.settlement.advanceConversions()).toBe(1);
    } else {
      p.states.set('trf_1', { status: 'final', waiting_funds: false, tx_id: '0xsweep' });
      expect(await t.services.settlement.advanceConversions()).toBe(1);
      // the chain room gives the payout up, as its outcome does
      p.states.set('trf_2', { status: 'failed', waiting_funds: false, why: 'reverted' });
      await h.db().transaction((tx) => failSettlement(tx, s.id, 'reverted', clock.now()));
    }
    const failed = await row(s.id);
    expect(failed).toMatchObject({ status: 'failed', conversion: expect.objectContaining({ status: 'pending', treasury: true }) });
    const c = failed.conversion as StoredConversion;
    const conversion = { via: 'swap', from: 'ETH', amount_in: formatUnits(BigInt(c.amount_in), 18), to: 'USDT_ERC20', amount_out: formatUnits(BigInt(c.amount_out), 6), status: 'done' };
    const { seq: before } = (await h.db().orm.select().from(events).where(eq(events.paymentId, s.paymentId)).orderBy(events.seq)).at(-1)!;
    const res = await t.app.inject({ method: 'POST', url: `/admin/settlements/${s.id}/return`, payload: { note: 'kept for the merchant' }, headers: ADMIN, remoteAddress: randomIp() });
    expect(res.statusCode).toBe(200);
    const returned = res.json().settlement as Record<string, unknown>;
    expect(returned).toMatchObject({
      id: s.id, mode: 'custodial', status: 'completed', note: 'returned to the balance: kept for the merchant', conversion,
    });
    expect(returned.conversion).toEqual(conversion);
    // the merchant reads the same
    const listed = await t.app.inject({ method: 'GET', url: `/merchant/settlements?payment_id=${s.paymentId}`, headers: tokenHeader(await m.owner.token()) });
    expect(listed.json().settlements).toEqual([returned]);
    // one event, the socket's settlement:update carrying it (a custodial settlement raises no webhook)
    const raised = (await h.db().orm.select().from(events).where(eq(events.paymentId, s.paymentId)).orderBy(events.seq)).filter((e) => e.seq > before);
    expect(raised.map((e) => [e.type, e.data])).toEqual([['settlement:update', returned]]);
    // exactly what the conversion was to buy is in the balance
    const [bal] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, m.id), eq(balances.livemode, true), eq(balances.token, 'USDT_ERC20')));
    expect([bal.available, bal.pendingPayout]).toEqual([BigInt(c.amount_out), 0n]);
    // nothing looks at it any more
    expect(await t.services.settlement.advanceConversions()).toBe(0);
  });

  it('is priced at the market when carried out: amount_out becomes what amount_in fetches then, within the guard', async () => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use('ethereum');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    const planned = s.conversion as StoredConversion;
    const market = t.services.settlement.market as { snapshot: (livemode: boolean) => MarketData };
    const original = market.snapshot;
    // ETH up 1% while the deposit is swept: within 3% of the quote, so carried out at the new price
    market.snapshot = (livemode) => {
      const d = original(livemode);
      return livemode ? { ...d, ETH: { ...d.ETH, rate: d.ETH.rate.mul('1.01') } } : d;
    };
    try {
      p.states.set('trf_1', { status: 'final', waiting_funds: false });
      expect(await t.services.settlement.advanceConversions()).toBe(1);
    } finally {
      market.snapshot = original;
    }
    const c = (await row(s.id)).conversion as StoredConversion;
    // amount_in × 3030 / 1, in USDT base units (6 decimals), rounded down
    const expected = (BigInt(planned.amount_in) * 3030n) / 10n ** 12n;
    expect(BigInt(c.amount_out)).toBe(expected);
    expect(BigInt(c.amount_out)).toBeGreaterThan(BigInt(planned.amount_out));
    expect(p.sent[1]).toMatchObject({ token: 'USDT_ERC20', amount: expected });
    const bought = (await entriesOf(s.paymentId)).filter((e) => e.type === 'conversion_in' || e.type === 'settlement').map((e) => e.amount);
    expect(bought.sort()).toEqual([-expected, expected].sort());
  });

  it(`waits with "${NOTE_CONVERSION_WAITING_PRICE}" while the market has no current price to guard it with`, async () => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use('ethereum');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    p.states.set('trf_1', { status: 'final', waiting_funds: false });
    const market = t.services.settlement.market as { snapshot: (livemode: boolean) => MarketData };
    const original = market.snapshot;
    market.snapshot = (livemode) => {
      const d = original(livemode);
      return livemode ? { ...d, ETH: { ...d.ETH, status: 'stale' } } : d;
    };
    try {
      expect(await t.services.settlement.advanceConversions()).toBe(1);
      expect(await row(s.id)).toMatchObject({ status: 'pending', note: NOTE_CONVERSION_WAITING_PRICE });
      // looked at again: nothing changes, nothing is sent
      expect(await t.services.settlement.advanceConversions()).toBe(0);
      expect(p.sent).toHaveLength(1);
    } finally {
      market.snapshot = original;
    }
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(await row(s.id)).toMatchObject({ status: 'pending', note: null });
    expect(p.sent.map((r) => r.purpose)).toEqual(['sweep', 'settlement']);
  });

  it(`a conversion that waited for its deposit's chain, whose payout chain still cannot send, is kept in the balance ("${NOTE_CANNOT_PAY_OUT}")`, async () => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_TRC20', ADDR.TRON);
    const p = use();
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    expect(s.note).toBe(NOTE_WAITING_CONVERSION);
    p.chains.add('ethereum');
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    const kept = await row(s.id);
    expect(kept).toMatchObject({ status: 'completed', mode: 'custodial', note: NOTE_CANNOT_PAY_OUT });
    expect(kept.conversion).toMatchObject({ via: 'exchange', to: 'USDT_TRC20', status: 'skipped', note: NOTE_CANNOT_PAY_OUT });
    // the deposit is swept into the service's wallet as any kept in the balance
    expect(p.sent.map((r) => [r.purpose, r.amount])).toEqual([['sweep', ETH(1)]]);
  });

  it('a conversion into XRP is paid to the payout address with its destination tag', async () => {
    const m = await newMerchant();
    await addAddress(m, 'XRP', ADDR.XRP, 4242);
    const p = use('ethereum', 'xrp');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    expect((s.conversion as StoredConversion)).toMatchObject({ via: 'exchange', to: 'XRP' });
    p.states.set('trf_1', { status: 'final', waiting_funds: false });
    await t.services.settlement.advanceConversions();
    expect(p.sent[1]).toMatchObject({ chain: 'xrp', token: 'XRP', to: ADDR.XRP, tag: 4242, purpose: 'settlement', reference: s.id });
    const [bal] = await h.db().orm.select().from(settlements).where(and(eq(settlements.id, s.id), eq(settlements.status, 'pending')));
    expect(bal.note).toBeNull();
  });

  it('a conversion whose chain layer throws is logged and passed over: the ones after it move in the same pass, it is tried again next pass', async () => {
    const m = await newMerchant();
    await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use();
    const [stuck] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    clock.advance(1000);
    const [later] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(2), usd: '6000' }]));
    expect([stuck.note, later.note]).toEqual([NOTE_WAITING_CONVERSION, NOTE_WAITING_CONVERSION]);
    // the chain layer refuses every transfer of the older one (say its node cannot broadcast)
    const send = p.send.bind(p);
    let refused = 0;
    p.send = async (tx, req) => {
      if (req.reference === stuck.id) { refused++; throw new Error('ethereum node: connection refused'); }
      return send(tx, req);
    };
    p.chains.add('ethereum');
    logged.length = 0;
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(refused).toBe(1);
    expect(await row(stuck.id)).toMatchObject({ status: 'pending', note: NOTE_WAITING_CONVERSION, transferIntents: null });
    expect(await row(later.id)).toMatchObject({ status: 'pending', note: NOTE_CONVERTING, transferIntents: ['trf_1'] });
    expect(p.sent.map((r) => [r.purpose, r.reference])).toEqual([['sweep', later.id]]);
    const warned = logged.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.settlement_id === stuck.id);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, err: { message: 'ethereum node: connection refused' } });
    // still failing: tried again on the next pass, the later one goes on to its payout
    p.states.set('trf_1', { status: 'final', waiting_funds: false });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(refused).toBe(2);
    expect(p.sent.map((r) => [r.purpose, r.reference])).toEqual([['sweep', later.id], ['settlement', later.id]]);
    // the chain layer works again: the older one starts
    p.send = send;
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(await row(stuck.id)).toMatchObject({ note: NOTE_CONVERTING, transferIntents: ['trf_3'] });
  });

  it('a payout waiting for the hot wallet\'s funds whose destination is refused meanwhile is called back when nothing was signed for it: what was bought stays in the balance', async () => {
    const m = await newMerchant();
    const address = await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use('ethereum');
    p.prefix = 'trf_w';
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    p.states.set('trf_w1', { status: 'final', waiting_funds: false, tx_id: '0xsweep' });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    // the payout is recorded; the hot wallet cannot pay it
    p.states.set('trf_w2', { status: 'pending', waiting_funds: true, why: 'the hot wallet holds 0 of USDT_ERC20' });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(await row(s.id)).toMatchObject({ status: 'pending', note: 'waiting for the service\'s ethereum hot wallet to be funded' });
    const c = (await row(s.id)).conversion as StoredConversion;
    // refused by now (as an old database holds it: the token contract)
    await h.db().orm.update(settlements).set({ destination: USDT_ERC20_CONTRACT }).where(eq(settlements.id, s.id));
    await h.db().orm.update(payoutAddresses).set({ address: USDT_ERC20_CONTRACT }).where(eq(payoutAddresses.id, address.id));
    // signed already (it may be on a node): it cannot be called back, and nothing changes
    p.signed.add('trf_w2');
    expect(await t.services.settlement.advanceConversions()).toBe(0);
    expect(p.canceled).toEqual([]);
    expect(await row(s.id)).toMatchObject({ status: 'pending', mode: 'direct' });
    // nothing signed: called back, and what the conversion bought is kept as step 2 keeps it
    p.signed.delete('trf_w2');
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    expect(p.canceled).toEqual(['trf_w2']);
    expect(p.sent.map((r) => r.purpose)).toEqual(['sweep', 'settlement']);
    const kept = await row(s.id);
    expect(kept).toMatchObject({
      mode: 'custodial', status: 'completed', destination: null, destinationTag: null, note: `payout address refused: ${CONTRACT_REFUSAL}`,
      transferIntents: ['trf_w1', 'trf_w2'], completedAt: clock.now(), txId: null,
    });
    expect(kept.conversion).toEqual({ ...c, status: 'done' });
    const entries = await entriesOf(s.paymentId);
    expect(entries.filter((e) => e.type === 'settlement_return').map((e) => [e.token, e.amount])).toEqual([['USDT_ERC20', BigInt(c.amount_out)]]);
    const [bal] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, m.id), eq(balances.livemode, true), eq(balances.token, 'USDT_ERC20')));
    expect([bal.available, bal.pendingPayout]).toEqual([BigInt(c.amount_out), 0n]);
    const told = await h.db().orm.select().from(notifications).where(and(eq(notifications.merchantId, m.id), eq(notifications.title, 'Payout address refused')));
    expect(told).toHaveLength(1);
    // done once
    expect(await t.services.settlement.advanceConversions()).toBe(0);
    expect(p.canceled).toEqual(['trf_w2']);
  });

  it('pays no conversion to a destination the gateway refuses by now: what it bought is kept in the balance with the refusal, the team told once', async () => {
    const m = await newMerchant();
    const address = await addAddress(m, 'USDT_ERC20', ADDR.EVM);
    const p = use('ethereum');
    const [s] = await t.services.settlement.settle(h.db(), input(ethPayment(m.id), [{ amount: ETH(1), usd: '3000' }]));
    expect(s).toMatchObject({ mode: 'direct', status: 'pending', destination: ADDR.EVM, conversion: expect.objectContaining({ to: 'USDT_ERC20', treasury: true }) });
    // as an old database holds it: planned (and stored) before token contracts were refused
    await h.db().orm.update(settlements).set({ destination: USDT_ERC20_CONTRACT }).where(eq(settlements.id, s.id));
    await h.db().orm.update(payoutAddresses).set({ address: USDT_ERC20_CONTRACT }).where(eq(payoutAddresses.id, address.id));
    p.states.set('trf_1', { status: 'final', waiting_funds: false, tx_id: '0xsweep' });
    expect(await t.services.settlement.advanceConversions()).toBe(1);
    // nothing sent to the contract: the deposit, swept once, stays in the service's wallet
    expect(p.sent.map((r) => r.purpose)).toEqual(['sweep']);
    const kept = await row(s.id);
    const c = kept.conversion as StoredConversion;
    expect(kept).toMatchObject({
      mode: 'custodial', status: 'completed', destination: null, destinationTag: null, note: `payout address refused: ${CONTRACT_REFUSAL}`,
      transferIntents: ['trf_1'], completedAt: clock.now(),
    });
    expect(c).toMatchObject({ to: 'USDT_ERC20', status: 'done' });
    // exactly what the conversion bought, in its coin, is in the balance
    const entries = await entriesOf(s.paymentId);
    expect(entries.find((e) => e.type === 'settlement_return')).toMatchObject({ token: 'USDT_ERC20', amount: BigInt(c.amount_out) });
    const [bal] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, m.id), eq(balances.livemode, true), eq(balances.token, 'USDT_ERC20')));
    expect([bal.available, bal.pendingPayout]).toEqual([BigInt(c.amount_out), 0n]);
    const told = () => h.db().orm.select().from(notifications).where(and(eq(notifications.merchantId, m.id), eq(notifications.title, 'Payout address refused')));
    expect(await told()).toHaveLength(1);
    // done once
    expect(await t.services.settlement.advanceConversions()).toBe(0);
    expect(p.sent).toHaveLength(1);
    expect(await told()).toHaveLength(1);
  });
});
