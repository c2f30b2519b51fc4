import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec, Decimal, ROUND_UP } from '../money/index.ts';
import { TOKENS, TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import {
  applyChange, depositCounts, depositUsdValue, isPaidWithinTolerance, LATE_WINDOW_MS, tallyDeposits,
  type AccountedPayment, type DepositFacts,
} from './deposit-accounting.ts';

const EXPIRES = new Date('2026-11-22T12:00:00Z');
const BEFORE = new Date(EXPIRES.getTime() - 60_000);
const AFTER = new Date(EXPIRES.getTime() + 60_000);
const HOUR = 3_600_000;

// $25 in ETH at $3000, fees passed on: amount due 26.27, 0.00875667 ETH.
const ETH_DUE = 8_756_670_000_000_000n;
const payment = (more: Partial<AccountedPayment> = {}): AccountedPayment => ({
  status: 'pending', token: 'ETH', amountDueUsd: dec('26.27'), cryptoAmount: ETH_DUE, rateLocked: dec(3000),
  underpaidToleranceBps: 50, acceptOtherAssets: false, enabledTokens: ['ETH', 'USDT_ERC20', 'USDC_ERC20'], expiresAt: EXPIRES, ...more,
});
let seq = 0;
const deposit = (token: TokenSymbol, amount: bigint, more: Partial<DepositFacts> = {}): DepositFacts => ({
  id: `dep_${++seq}`, token, amount, usdValue: depositUsdValue(token, amount, token === 'ETH' ? dec(3000) : dec(1)),
  confirmations: 1, confirmationsRequired: 12, state: 'pending', late: false, seenAt: BEFORE, ...more,
});
const usdt = (dollars: string) => BigInt(dec(dollars).mul(1_000_000).toFixed(0));
const seen = (d: DepositFacts) => ({ kind: 'deposit_seen' as const, deposit: d.id });

describe('which deposits count', () => {
  it('counts the payment coin, not a failed deposit', () => {
    expect(depositCounts(payment(), deposit('ETH', ETH_DUE))).toBe(true);
    expect(depositCounts(payment(), deposit('ETH', ETH_DUE, { state: 'failed' }))).toBe(false);
  });

  it('counts another enabled coin only with accept_other_assets, never a coin not enabled', () => {
    expect(depositCounts(payment(), deposit('USDT_ERC20', usdt('30')))).toBe(false);
    expect(depositCounts(payment({ acceptOtherAssets: true }), deposit('USDT_ERC20', usdt('30')))).toBe(true);
    expect(depositCounts(payment({ acceptOtherAssets: true }), deposit('BNB', 10n ** 17n))).toBe(false);
    expect(depositCounts(payment({ enabledTokens: ['USDT_ERC20'] }), deposit('ETH', ETH_DUE))).toBe(false);
  });

  it('counts a late deposit up to 24 hours after expires_at', () => {
    const closed = payment({ status: 'expired' });
    expect(depositCounts(closed, deposit('ETH', ETH_DUE, { late: true, seenAt: new Date(EXPIRES.getTime() + LATE_WINDOW_MS) }))).toBe(true);
    expect(depositCounts(closed, deposit('ETH', ETH_DUE, { late: true, seenAt: new Date(EXPIRES.getTime() + LATE_WINDOW_MS + 1) }))).toBe(false);
  });

  it('counts nothing before a coin is chosen', () => {
    expect(depositCounts(payment({ token: '' }), deposit('ETH', ETH_DUE))).toBe(false);
    // not even another coin the merchant accepts: a payment with no coin has nothing to cover yet
    expect(depositCounts(payment({ token: '', acceptOtherAssets: true }), deposit('USDT_ERC20', usdt('30')))).toBe(false);
  });
});

describe('tally', () => {
  it('adds the own coin to received_amount and every counted deposit to received_usd', () => {
    const p = payment({ acceptOtherAssets: true });
    const a = deposit('ETH', ETH_DUE / 2n);
    const b = deposit('USDT_ERC20', usdt('13.2'));
    const c = deposit('ETH', ETH_DUE, { state: 'failed' });
    const t = tallyDeposits(p, [a, b, c]);
    expect(t.receivedAmount).toBe(ETH_DUE / 2n);
    expect(t.receivedUsd.toFixed()).toBe(a.usdValue.plus('13.2').toFixed());
    expect([...t.counted.entries()]).toEqual([[a.id, true], [b.id, true], [c.id, false]]);
    expect(t.coverage).toBe('paid');
    expect(t.finalCoverage).toBe('none');
  });

  it('values a deposit half-up to the cent at the given rate', () => {
    expect(depositUsdValue('ETH', ETH_DUE, dec(3000)).toFixed()).toBe('26.27'); // 26.27001
    expect(depositUsdValue('USDT_BEP20', 10n ** 18n, dec(1)).toFixed()).toBe('1');
    // the half cent itself goes up, a base unit less goes down
    expect(depositUsdValue('USDT_ERC20', 1_005_000n, dec(1)).toFixed()).toBe('1.01');
    expect(depositUsdValue('USDT_ERC20', 1_004_999n, dec(1)).toFixed()).toBe('1');
  });

  it('is paid when short by exactly the tolerance, not a cent more', () => {
    // 0.5% of 20.00 is 0.10
    expect(isPaidWithinTolerance(dec('20'), dec('19.90'), 50)).toBe(true);
    expect(isPaidWithinTolerance(dec('20'), dec('19.89'), 50)).toBe(false);
    expect(isPaidWithinTolerance(dec('20'), dec('20'), 0)).toBe(true);
    expect(isPaidWithinTolerance(dec('20'), dec('19.99'), 0)).toBe(false);
    expect(isPaidWithinTolerance(dec('20'), dec('25'), 0)).toBe(true);
  });
});

describe('applying a change', () => {
  it('pays in full: detecting, then confirmed when final', () => {
    const d = deposit('ETH', ETH_DUE);
    const first = applyChange(payment(), [d], seen(d), BEFORE);
    expect(first).toMatchObject({ status: 'detecting', changed: true, events: ['payment.detecting'] });
    const final = { ...d, state: 'final' as const, confirmations: 12 };
    expect(applyChange(payment({ status: 'detecting' }), [final], { kind: 'deposit_final', deposit: d.id }, AFTER))
      .toMatchObject({ status: 'confirmed', events: ['payment.confirmed'] });
  });

  it('pays in parts: partially paid, then underpaid at the deadline', () => {
    const d = deposit('ETH', ETH_DUE / 2n);
    const r = applyChange(payment(), [d], seen(d), BEFORE);
    expect(r).toMatchObject({ status: 'partially_paid', events: ['payment.partially_paid'] });
    expect(r.tally.receivedAmount).toBe(ETH_DUE / 2n);
    expect(applyChange(payment({ status: 'partially_paid' }), [d], { kind: 'deadline' }, EXPIRES))
      .toMatchObject({ status: 'underpaid', events: ['payment.underpaid'] });
  });

  it('applies the underpaid tolerance to amount_due_usd', () => {
    // 0.5% of 26.27 is 0.13135: 26.14 arrived is within, 26.13 is not
    const within = deposit('USDT_ERC20', usdt('26.14'));
    const short = deposit('USDT_ERC20', usdt('26.13'));
    const p = payment({ token: 'USDT_ERC20', rateLocked: dec(1), cryptoAmount: usdt('26.27') });
    expect(applyChange(p, [within], seen(within), BEFORE).status).toBe('detecting');
    expect(applyChange(p, [short], seen(short), BEFORE).status).toBe('partially_paid');
    expect(applyChange({ ...p, underpaidToleranceBps: 0 }, [within], seen(within), BEFORE).status).toBe('partially_paid');
  });

  it('expires at the deadline when nothing arrived or no coin was chosen, not before', () => {
    expect(applyChange(payment(), [], { kind: 'deadline' }, EXPIRES)).toMatchObject({ status: 'expired', events: ['payment.expired'] });
    expect(applyChange(payment({ token: '' }), [], { kind: 'deadline' }, EXPIRES).status).toBe('expired');
    expect(applyChange(payment(), [], { kind: 'deadline' }, BEFORE)).toMatchObject({ status: 'pending', changed: false, events: [] });
  });

  it('raises wrong_asset for another coin, counted or not', () => {
    const d = deposit('USDT_ERC20', usdt('27'));
    expect(applyChange(payment(), [d], seen(d), BEFORE)).toMatchObject({ status: 'pending', events: ['payment.wrong_asset'] });
    const accepted = applyChange(payment({ acceptOtherAssets: true }), [d], seen(d), BEFORE);
    expect(accepted).toMatchObject({ status: 'detecting', events: ['payment.detecting', 'payment.wrong_asset'] });
    expect(accepted.tally.receivedAmount).toBe(0n);
    expect(accepted.tally.receivedUsd.toFixed()).toBe('27');
  });

  it('never counts a coin not enabled, even with accept_other_assets', () => {
    const d = deposit('BNB', 10n ** 17n, { usdValue: dec(90) });
    expect(applyChange(payment({ acceptOtherAssets: true }), [d], seen(d), BEFORE))
      .toMatchObject({ status: 'pending', events: ['payment.wrong_asset'] });
  });

  it('lets a late deposit complete a closed payment: detecting and late_deposit together', () => {
    const d = deposit('ETH', ETH_DUE, { late: true, seenAt: new Date(EXPIRES.getTime() + 23 * HOUR) });
    expect(applyChange(payment({ status: 'expired' }), [d], seen(d), d.seenAt))
      .toMatchObject({ status: 'detecting', events: ['payment.detecting', 'payment.late_deposit'] });
  });

  it('leaves a late deposit still short underpaid', () => {
    const early = deposit('ETH', ETH_DUE / 4n);
    const late = deposit('ETH', ETH_DUE / 4n, { late: true, seenAt: AFTER });
    expect(applyChange(payment({ status: 'underpaid' }), [early, late], seen(late), AFTER))
      .toMatchObject({ status: 'underpaid', changed: false, events: ['payment.late_deposit', 'payment.underpaid'] });
  });

  it('ignores a transfer after the late window: it is no longer this payment\'s', () => {
    const d = deposit('ETH', ETH_DUE, { late: true, seenAt: new Date(EXPIRES.getTime() + 25 * HOUR) });
    const r = applyChange(payment({ status: 'expired' }), [d], seen(d), d.seenAt);
    expect(r).toMatchObject({ status: 'expired', changed: false, events: [] });
    expect(r.tally.counted.get(d.id)).toBe(false);
  });

  it('fails a payment whose funds never became final', () => {
    const d = deposit('ETH', ETH_DUE, { state: 'failed' });
    expect(applyChange(payment({ status: 'detecting' }), [d], { kind: 'deposit_failed', deposit: d.id }, BEFORE))
      .toMatchObject({ status: 'failed', events: ['payment.failed'] });
  });

  it('a deposit dropped at expires_at itself leaves the payment underpaid: the deadline has passed from that instant', () => {
    // The deadline timer fires at expires_at and finds the payment detecting (nothing to do); a
    // drop at that same instant must close it, or it would stay partially paid with no deadline left.
    const kept = deposit('ETH', ETH_DUE / 2n);
    const dropped = deposit('ETH', ETH_DUE / 2n, { state: 'failed' });
    const r = applyChange(payment({ status: 'detecting' }), [kept, dropped], { kind: 'deposit_failed', deposit: dropped.id }, EXPIRES);
    expect(r).toMatchObject({ status: 'underpaid', events: ['payment.underpaid'] });
    expect(applyChange(payment({ status: 'detecting' }), [kept, dropped], { kind: 'deposit_failed', deposit: dropped.id }, new Date(EXPIRES.getTime() - 1)))
      .toMatchObject({ status: 'partially_paid', events: ['payment.partially_paid'] });
  });

  it('moves no status on confirmations alone', () => {
    const d = deposit('ETH', ETH_DUE / 2n, { confirmations: 5 });
    expect(applyChange(payment({ status: 'partially_paid' }), [d], { kind: 'deposit_confirmations', deposit: d.id }, BEFORE))
      .toMatchObject({ status: 'partially_paid', changed: false, events: [] });
  });

  it('refuses a change naming a deposit it was not given', () => {
    expect(() => applyChange(payment(), [], { kind: 'deposit_seen', deposit: 'nope' }, BEFORE)).toThrow(/nope/);
  });
});

describe('tolerance properties', () => {
  const centsArb = (min: number, max: number) => fc.integer({ min, max }).map((n) => dec(n).div(100));

  it('paid exactly when the shortfall is at most tolerance × amount due', () => {
    fc.assert(fc.property(centsArb(1, 10_000_000), centsArb(0, 20_000_000), fc.integer({ min: 0, max: 2000 }), (due, got, tol) => {
      const expected = got.gte(due.mul(dec(1).minus(dec(tol).div(10_000))));
      expect(isPaidWithinTolerance(due, got, tol)).toBe(expected);
    }), { numRuns: 500 });
  });

  it('sending crypto_amount always pays; more never pays less; short of the tolerance never pays', () => {
    const arb = fc.record({
      token: fc.constantFrom(...TOKENS),
      due: centsArb(1, 1_000_000),
      rate: fc.integer({ min: 1, max: 10 ** 9 }).map((n) => dec(n).div(10_000)),
      tol: fc.integer({ min: 0, max: 2000 }),
      extra: fc.bigInt({ min: 0n, max: 10n ** 12n }),
    });
    fc.assert(fc.property(arb, ({ token, due, rate, tol, extra }) => {
      const { precision, decimals } = TOKEN_DEFS[token];
      const step = 10n ** BigInt(decimals - precision);
      const crypto = BigInt(due.div(rate).toDecimalPlaces(precision, ROUND_UP).mul(dec(10n ** BigInt(decimals))).toFixed(0));
      const p = payment({ token, amountDueUsd: due, cryptoAmount: crypto, rateLocked: rate, underpaidToleranceBps: tol, enabledTokens: [token] });
      const pay = (amount: bigint) => tallyDeposits(p, [deposit(token, amount, { usdValue: depositUsdValue(token, amount, rate) })]).coverage;
      expect(pay(crypto)).toBe('paid');
      expect(pay(crypto + extra * step)).toBe('paid');
      // the largest amount worth less than due × (1 - tol) does not pay
      const limitCoins = due.mul(dec(1).minus(dec(tol).div(10_000))).div(rate);
      const below = BigInt(limitCoins.mul(dec(10n ** BigInt(decimals))).toDecimalPlaces(0, Decimal.ROUND_CEIL).toFixed(0)) - 1n;
      if (below > 0n) expect(pay(below)).toBe('partial');
    }), { numRuns: 300 });
  });
});
