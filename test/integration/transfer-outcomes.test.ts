// What a transfer's end means for what it was made for (chains/transfers/outcomes.ts), rule by rule,
// on a real database: a settlement's transfer completes or fails it, a payout's marks it sent or
// rejected, the service's own transfers only log, an operator's earlier move is tolerated, and on
// Tron the burnt fee replaces the quoted one once none of the settlement's transfers is open.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { and, asc, eq, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, uid, type Account } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { newId } from '../../src/platform/ids.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { dec, type Decimal } from '../../src/money/index.ts';
import type { Executor } from '../../src/platform/db/index.ts';
import { recordTransfer, type TransferRow } from '../../src/chains/transfers/index.ts';
import { moveTransfer } from '../../src/chains/transfers/store.ts';
import { settlementOutcomes, type RatesOf } from '../../src/chains/transfers/outcomes.ts';
import type { TransferPurpose, TransferStatus } from '../../src/chains/transfers/types.ts';
import { balances, ledgerEntries, payouts, payoutSendFailedNote, recordBurntFee, settlements } from '../../src/settlement/index.ts';
import { postEntries } from '../../src/settlement/balance-store.ts';
import { events } from '../../src/events/schema.ts';
import { notifications } from '../../src/notifications/schema.ts';
import type { TokenSymbol } from '../../src/tokens/index.ts';
import type { Chain } from '../../src/config.ts';

/** A direct settlement's figures: amount = net + service fee + quoted network fee. */
const AMOUNT = 10_000_000n;
const SERVICE_FEE = 100_000n;
const QUOTED_FEE = 1_500_000n;
const NET = AMOUNT - SERVICE_FEE - QUOTED_FEE;
const PAYOUT = 40_000_000n;

describeEachDb('settlementOutcomes', (h) => {
  let t: TestApp;
  let acct: Account;
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('info', new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }));
  let rates: RatesOf | null = null;
  const outcomes = settlementOutcomes(log, () => rates);
  const logged = (msg: string) => lines.filter((l) => l.msg === msg);

  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const db = () => h.db().orm;
  const tx = <T>(f: (tx: Executor) => Promise<T>) => h.db().transaction(f);

  async function settlement(token: TokenSymbol, chain: Chain, status = 'pending'): Promise<string> {
    const now = new Date();
    const id = newId('stl', now);
    await db().insert(settlements).values({
      id, merchantId: acct.merchant.id, paymentId: newId('pay', now), livemode: false, mode: 'direct', token, chain,
      depositTx: `tx_${uid()}`, amount: AMOUNT, serviceFee: SERVICE_FEE, networkFee: QUOTED_FEE, conversionFee: 0n, net: NET,
      usdValue: dec('10'), usdRate: dec('1'), serviceFeeUsd: dec('0.10'), networkFeeUsd: dec('1.50'), conversionFeeUsd: dec('0'),
      netUsd: dec('8.40'), destination: ADDR.TRON_2, status, input: {}, createdAt: now, updatedAt: now,
    });
    return id;
  }
  const settlementRow = async (id: string) => (await db().select().from(settlements).where(eq(settlements.id, id)))[0];

  /** An approved payout of 40 USDT_BEP20 whose amount is held in pending_payout. */
  async function approvedPayout(): Promise<string> {
    const now = new Date();
    const id = newId('po', now);
    await db().insert(payouts).values({
      id, merchantId: acct.merchant.id, livemode: true, token: 'USDT_BEP20', chain: 'bsc', fromToken: 'USDT_BEP20', fromChain: 'bsc',
      amount: PAYOUT, networkFee: 0n, sendAmount: PAYOUT, amountUsd: dec('40'), networkFeeUsd: dec('0'), sendAmountUsd: dec('40'),
      usdRate: dec('1'), addressId: `pa_${uid()}`, address: ADDR.EVM_2, status: 'approved', requestedBy: acct.merchant.id,
      createdAt: now, updatedAt: now, approvedAt: now,
    });
    await tx((x) => postEntries(x, { merchantId: acct.merchant.id, livemode: true }, [
      { type: 'payout_hold', token: 'USDT_BEP20', chain: 'bsc', amount: -PAYOUT, usd_amount: dec('-40'), reference: id },
    ], now));
    return id;
  }
  const payoutRow = async (id: string) => (await db().select().from(payouts).where(eq(payouts.id, id)))[0];
  const bep20Balance = async () => (await db().select().from(balances).where(and(
    eq(balances.merchantId, acct.merchant.id), eq(balances.livemode, true), eq(balances.token, 'USDT_BEP20'))))[0];

  /** A transfer of `reference`, moved to `status` (with its mined fee when given). */
  async function transfer(reference: string, purpose: TransferPurpose, chain: Chain, token: TokenSymbol, status: TransferStatus, minedFee: bigint | null = null): Promise<TransferRow> {
    const now = new Date();
    const recorded = await recordTransfer(db(), {
      chain, livemode: false, purpose, token, fromAddress: ADDR.TRON, fromIndex: 0, fromRole: 'deposit', toAddress: ADDR.TRON_2,
      amount: purpose === 'settlement' ? NET : SERVICE_FEE, reference,
    }, now);
    if (status === 'recorded') return recorded;
    return (await moveTransfer(db(), recorded, 'recorded', { status, txId: `tx_${uid()}`, block: 10n, minedFee }, now))!;
  }

  const eventTypes = async (paymentId: string) =>
    (await db().select().from(events).where(eq(events.paymentId, paymentId)).orderBy(asc(events.seq))).map((e) => e.type);

  it('final: a settlement\'s transfer completes it with its tx_id, the quoted network fee standing (account chain)', async () => {
    const id = await settlement('ETH', 'ethereum');
    const tr = await transfer(id, 'settlement', 'ethereum', 'ETH', 'final', 21_000n);
    const now = new Date();
    // with rates at hand, so only the rule "burnt fees are Tron's" keeps the quote
    rates = () => ({ TRX: dec('0.25'), ETH: dec('3000') });
    try { await tx((x) => outcomes.final(x, tr, now)); } finally { rates = null; }
    const row = await settlementRow(id);
    expect(row).toMatchObject({ status: 'completed', txId: tr.txId, completedAt: now, networkFee: QUOTED_FEE, serviceFee: SERVICE_FEE, net: NET });
    expect(await eventTypes(row.paymentId)).toEqual(['settlement.completed', 'settlement:update']);
  });

  it('final: a Bitcoin-family settlement records its transaction\'s mined fee as the network fee; net never moves', async () => {
    const id = await settlement('BTC', 'bitcoin');
    const tr = await transfer(id, 'settlement', 'bitcoin', 'BTC', 'final', 3_210n);
    await tx((x) => outcomes.final(x, tr, new Date()));
    const row = await settlementRow(id);
    expect(row).toMatchObject({ status: 'completed', txId: tr.txId, networkFee: 3_210n, serviceFee: SERVICE_FEE + QUOTED_FEE - 3_210n, net: NET });
    expect(row.networkFeeUsd.toFixed(2)).toBe('0.00');
    expect(row.serviceFeeUsd.toFixed(2)).toBe('1.60');
    const entries = await db().select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, row.paymentId)).orderBy(asc(ledgerEntries.seq));
    expect(entries.map((e) => [e.type, e.amount])).toEqual([['network_fee', QUOTED_FEE - 3_210n], ['fee', 3_210n - QUOTED_FEE]]);
  });

  it('final: a payout\'s transfer marks it sent with its tx_id and releases what it held', async () => {
    const id = await approvedPayout();
    expect((await bep20Balance()).pendingPayout).toBe(PAYOUT);
    const tr = await transfer(id, 'payout', 'bsc', 'USDT_BEP20', 'final');
    await tx((x) => outcomes.final(x, tr, new Date()));
    expect(await payoutRow(id)).toMatchObject({ status: 'sent', txId: tr.txId });
    expect(await bep20Balance()).toMatchObject({ available: -PAYOUT, pendingPayout: 0n });
  });

  it('final: the service\'s share, a sweep or a gas top-up leave the settlement as it was', async () => {
    const id = await settlement('ETH', 'ethereum');
    for (const purpose of ['service_fee', 'sweep', 'gas_topup'] as const) {
      const tr = await transfer(id, purpose, 'ethereum', 'ETH', 'final', 21_000n);
      await tx((x) => outcomes.final(x, tr, new Date()));
    }
    expect(await settlementRow(id)).toMatchObject({ status: 'pending', txId: null, networkFee: QUOTED_FEE, serviceFee: SERVICE_FEE });
  });

  it('final: a settlement the operator moved on meanwhile stays as it is, with a warning (no throw)', async () => {
    const id = await settlement('ETH', 'ethereum', 'failed');
    const tr = await transfer(id, 'settlement', 'ethereum', 'ETH', 'final', 21_000n);
    const before = logged('a transfer\'s outcome found its settlement or payout moved on').length;
    await tx((x) => outcomes.final(x, tr, new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'failed', txId: null });
    const warned = logged('a transfer\'s outcome found its settlement or payout moved on');
    expect(warned).toHaveLength(before + 1);
    expect(warned.at(-1)).toMatchObject({ level: 40, transfer: tr.id, reference: id, err: 'settlement not found' });
  });

  // PostgreSQL only: PGlite has one connection, so no second transaction can hold the row.
  it.skipIf(h.kind !== 'postgres')('final: a database failure is not taken for the operator\'s move: it fails the transaction', async () => {
    const id = await settlement('ETH', 'ethereum');
    const tr = await transfer(id, 'settlement', 'ethereum', 'ETH', 'final', 21_000n);
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => { locked = r; });
    const holder = tx(async (x) => {
      await x.select().from(settlements).where(eq(settlements.id, id)).for('update');
      locked();
      await held;
    });
    await isLocked;
    try {
      await expect(tx(async (x) => {
        await x.execute(sql`set local lock_timeout = '100ms'`);
        await outcomes.final(x, tr, new Date());
      })).rejects.toMatchObject({ cause: { code: '55P03' } }); // lock_not_available
    } finally {
      release();
      await holder;
    }
    expect(await settlementRow(id)).toMatchObject({ status: 'pending', txId: null });
  });

  it('failed: a settlement\'s transfer given up fails it with the reason, and tells the merchant', async () => {
    const id = await settlement('ETH', 'ethereum');
    const tr = await transfer(id, 'settlement', 'ethereum', 'ETH', 'failed');
    await tx((x) => outcomes.failed(x, tr, 'nonce too low five times', new Date()));
    const row = await settlementRow(id);
    expect(row).toMatchObject({ status: 'failed', note: 'nonce too low five times', txId: null, networkFee: QUOTED_FEE });
    expect(await eventTypes(row.paymentId)).toEqual(['settlement.failed', 'settlement:update']);
    const [n] = await db().select().from(notifications).where(eq(notifications.subject, id));
    expect(n).toMatchObject({ title: 'Settlement failed', body: `The settlement of 0.00000000001 ETH of payment ${row.paymentId} could not be sent: nonce too low five times.` });
  });

  it('failed: a payout\'s transfer given up rejects it with the reason and puts the amount back', async () => {
    const id = await approvedPayout();
    const before = await bep20Balance();
    const tr = await transfer(id, 'payout', 'bsc', 'USDT_BEP20', 'failed');
    await tx((x) => outcomes.failed(x, tr, 'insufficient funds', new Date()));
    expect(await payoutRow(id)).toMatchObject({ status: 'rejected', reviewNote: payoutSendFailedNote('insufficient funds'), txId: null });
    expect(await bep20Balance()).toMatchObject({ available: before.available + PAYOUT, pendingPayout: before.pendingPayout - PAYOUT });
  });

  it('failed: the service\'s own transfer given up is logged as an error; the settlement stays as it is', async () => {
    const id = await settlement('ETH', 'ethereum');
    const tr = await transfer(id, 'sweep', 'ethereum', 'ETH', 'failed');
    await tx((x) => outcomes.failed(x, tr, 'reverted', new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'pending', note: null });
    expect(logged('a transfer of the service\'s own money was given up').at(-1))
      .toMatchObject({ level: 50, transfer: tr.id, purpose: 'sweep', chain: 'ethereum', from: ADDR.TRON, why: 'reverted' });
  });

  it('failed: a settlement the operator completed meanwhile stays completed, with a warning', async () => {
    const id = await settlement('ETH', 'ethereum', 'completed');
    const tr = await transfer(id, 'settlement', 'ethereum', 'ETH', 'failed');
    await tx((x) => outcomes.failed(x, tr, 'gave up', new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'completed', note: null });
    expect(logged('a transfer\'s outcome found its settlement or payout moved on').at(-1)).toMatchObject({ transfer: tr.id, reference: id });
  });

  it('canceled: a settlement\'s or payout\'s transfer fails it as one given up would', async () => {
    const id = await settlement('ETH', 'ethereum');
    const tr = await transfer(id, 'settlement', 'ethereum', 'ETH', 'canceled');
    await tx((x) => outcomes.canceled(x, tr, 'nothing_left', new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'failed', note: 'nothing_left' });
    const po = await approvedPayout();
    const ptr = await transfer(po, 'payout', 'bsc', 'USDT_BEP20', 'canceled');
    await tx((x) => outcomes.canceled(x, ptr, 'nothing_left', new Date()));
    expect(await payoutRow(po)).toMatchObject({ status: 'rejected', reviewNote: payoutSendFailedNote('nothing_left') });
  });

  it('canceled: the service\'s share not worth its fee is logged with its amount; the settlement stays as it is', async () => {
    const id = await settlement('ETH', 'ethereum');
    const tr = await transfer(id, 'service_fee', 'ethereum', 'ETH', 'canceled');
    await tx((x) => outcomes.canceled(x, tr, 'nothing_left', new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'pending', note: null });
    expect(logged('a transfer of the service\'s own money was not worth its fee').at(-1))
      .toMatchObject({ level: 30, transfer: tr.id, purpose: 'service_fee', amount: String(SERVICE_FEE), why: 'nothing_left' });
  });

  // Tron: the fee burnt replaces the quoted one once none of the settlement's transfers is open.
  const MINED = { settlement: 268_000n, service_fee: 1_100_000n } as const;
  const BURNT = MINED.settlement + MINED.service_fee;

  it('Tron: completed while its share is open, the quote stands; the share final then records the burnt fee', async () => {
    const id = await settlement('TRX', 'tron');
    const share = await transfer(id, 'service_fee', 'tron', 'TRX', 'mined', MINED.service_fee);
    const merchant = await transfer(id, 'settlement', 'tron', 'TRX', 'final', MINED.settlement);
    await tx((x) => outcomes.final(x, merchant, new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'completed', networkFee: QUOTED_FEE, serviceFee: SERVICE_FEE });
    const final = (await moveTransfer(db(), share, 'mined', { status: 'final' }, new Date()))!;
    await tx((x) => outcomes.final(x, final, new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'completed', networkFee: BURNT, serviceFee: SERVICE_FEE + QUOTED_FEE - BURNT, net: NET });
  });

  it('Tron: the share canceled after the settlement completed records what was burnt', async () => {
    const id = await settlement('TRX', 'tron');
    const merchant = await transfer(id, 'settlement', 'tron', 'TRX', 'final', MINED.settlement);
    const share = await transfer(id, 'service_fee', 'tron', 'TRX', 'recorded');
    await tx((x) => outcomes.final(x, merchant, new Date()));
    expect((await settlementRow(id)).networkFee).toBe(QUOTED_FEE);
    const canceled = (await moveTransfer(db(), share, 'recorded', { status: 'canceled' }, new Date()))!;
    await tx((x) => outcomes.canceled(x, canceled, 'nothing_left', new Date()));
    expect(await settlementRow(id)).toMatchObject({ networkFee: MINED.settlement, serviceFee: SERVICE_FEE + QUOTED_FEE - MINED.settlement });
  });

  it('Tron: a failed settlement records nothing of what was burnt', async () => {
    const id = await settlement('TRX', 'tron');
    await transfer(id, 'service_fee', 'tron', 'TRX', 'final', MINED.service_fee);
    const merchant = await transfer(id, 'settlement', 'tron', 'TRX', 'failed', MINED.settlement);
    await tx((x) => outcomes.failed(x, merchant, 'out of energy', new Date()));
    expect(await settlementRow(id)).toMatchObject({ status: 'failed', networkFee: QUOTED_FEE, serviceFee: SERVICE_FEE });
  });

  it('Tron: a token settlement\'s burnt TRX is priced in its coin at the rates of its mode, and without rates the quote stands', async () => {
    const burnt = async (r: RatesOf | null) => {
      rates = r;
      try {
        const id = await settlement('USDT_TRC20', 'tron');
        await transfer(id, 'service_fee', 'tron', 'USDT_TRC20', 'final', MINED.service_fee);
        const merchant = await transfer(id, 'settlement', 'tron', 'USDT_TRC20', 'final', MINED.settlement);
        await tx((x) => outcomes.final(x, merchant, new Date()));
        const row = await settlementRow(id);
        expect(row.status).toBe('completed');
        return [row.networkFee, row.serviceFee, row.net];
      } finally { rates = null; }
    };
    const asked: boolean[] = [];
    const quarter: RatesOf = (livemode) => { asked.push(livemode); return { TRX: dec('0.25'), USDT_TRC20: dec('1') } as Partial<Record<TokenSymbol, Decimal>>; };
    // 1.368 TRX burnt at $0.25 = 0.342 USDT
    expect(await burnt(quarter)).toEqual([342_000n, SERVICE_FEE + QUOTED_FEE - 342_000n, NET]);
    expect(asked).toEqual([false]);
    expect(await burnt(null)).toEqual([QUOTED_FEE, SERVICE_FEE, NET]);
  });

  it('Tron: a custodial settlement never takes a burnt fee (its sweep is the service\'s own cost), nor a burn equal to the quote', async () => {
    const custodial = await settlement('TRX', 'tron', 'completed');
    await db().update(settlements).set({ mode: 'custodial' }).where(eq(settlements.id, custodial));
    expect(await tx((x) => recordBurntFee(x, custodial, { token: 'TRX', amount: 1_000_000n }, {}, new Date()))).toBe(false);
    expect(await settlementRow(custodial)).toMatchObject({ networkFee: QUOTED_FEE, serviceFee: SERVICE_FEE });
    // the quote was right: nothing changes, and the merchant is told of no change
    const exact = await settlement('TRX', 'tron', 'completed');
    const row = await settlementRow(exact);
    expect(await tx((x) => recordBurntFee(x, exact, { token: 'TRX', amount: QUOTED_FEE }, {}, new Date()))).toBe(false);
    expect(await eventTypes(row.paymentId)).toEqual([]);
    expect(await db().select().from(ledgerEntries).where(eq(ledgerEntries.reference, `${row.paymentId}:${row.depositTx}`))).toEqual([]);
  });

  it('Tron: a burn dearer than the service\'s whole share is recorded up to that share, never taken from net', async () => {
    const id = await settlement('TRX', 'tron');
    await transfer(id, 'service_fee', 'tron', 'TRX', 'final', 1_000_000n);
    const merchant = await transfer(id, 'settlement', 'tron', 'TRX', 'final', 2_000_000n);
    await tx((x) => outcomes.final(x, merchant, new Date()));
    expect(await settlementRow(id)).toMatchObject({ networkFee: SERVICE_FEE + QUOTED_FEE, serviceFee: 0n, net: NET });
  });
});
