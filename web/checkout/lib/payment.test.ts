import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { breakdownOf, phaseOf, screenOf, shortfallOf, LATE_WINDOW_MS, type Deposit, type Payment } from './payment.ts';
import { cents, dollars } from './amounts.ts';

const base: Payment = {
  id: 'pay_1', status: 'pending', token: 'ETH', chain: 'ethereum', livemode: false, deposit_address: '0xabc',
  crypto_amount: '0.01', received_amount: '0', usd_amount: '25.00', amount_due_usd: '25.00', received_usd: '0.00',
  expires_at: '2026-01-05T12:00:00.000Z', deposits: [],
};
const deposit = (over: Partial<Deposit>): Deposit => ({
  tx_id: 'tx', token: 'ETH', amount: '0.004', usd_value: '10.00', counted: true, confirmations: 0, confirmations_required: 12, status: 'pending', ...over,
});

describe('the screen of a payment', () => {
  it('one phase per status; choose while no coin', () => {
    expect(phaseOf({ ...base, token: '' })).toBe('choose');
    expect(phaseOf(base)).toBe('pay');
    expect(phaseOf({ ...base, status: 'partially_paid' })).toBe('pay');
    expect(phaseOf({ ...base, status: 'detecting' })).toBe('detecting');
    expect(phaseOf({ ...base, status: 'confirmed' })).toBe('confirmed');
    for (const status of ['expired', 'underpaid', 'failed'] as const) expect(phaseOf({ ...base, status })).toBe('closed');
    expect(phaseOf({ ...base, token: '', status: 'expired' })).toBe('closed');
  });

  it('what is still due after part arrived, exactly', () => {
    const s = screenOf({ ...base, status: 'partially_paid', received_amount: '0.004', deposits: [deposit({})] });
    expect(s).toMatchObject({ stillDue: '0.006', partial: true, otherCoin: [] });
    expect(screenOf(base)).toMatchObject({ stillDue: '0.01', partial: false });
  });

  it('another coin: named, and counted in dollars when it counts', () => {
    const other = deposit({ token: 'USDT_ERC20', amount: '10', usd_value: '10.00', counted: true });
    const s = screenOf({ ...base, status: 'partially_paid', received_usd: '10.00', deposits: [other] });
    expect(s.otherCoin).toEqual([other]);
    expect(s.stillDue).toBeUndefined();
    expect(s.stillDueUsd).toBe('15.00');
    expect(s.partial).toBe(true);
    const notCounted = screenOf({ ...base, deposits: [{ ...other, counted: false }] });
    expect(notCounted).toMatchObject({ stillDue: '0.01', partial: false });
  });

  it('a closed payment says until when a late deposit counts (24 hours after the deadline)', () => {
    const deadline = Date.parse(base.expires_at!);
    const s = screenOf({ ...base, status: 'expired' }, deadline + 1000);
    expect(s.lateUntil?.getTime()).toBe(deadline + LATE_WINDOW_MS);
    expect(screenOf({ ...base, status: 'underpaid' }, deadline + LATE_WINDOW_MS).lateUntil?.getTime()).toBe(deadline + LATE_WINDOW_MS);
    expect(screenOf(base, deadline - 1000).lateUntil).toBeUndefined();
    expect(screenOf({ ...base, status: 'confirmed', deposits: [deposit({ late: true })] }).lateCounted).toBe(true);
  });

  it('past those 24 hours a late deposit no longer counts: no time to name', () => {
    const after = Date.parse(base.expires_at!) + LATE_WINDOW_MS + 1;
    for (const status of ['expired', 'underpaid', 'failed'] as const) expect(screenOf({ ...base, status }, after).lateUntil).toBeUndefined();
  });

  it('an underpaid payment: what arrived, of what, and the rest, in coins', () => {
    const p = { ...base, status: 'underpaid' as const, received_amount: '0.004', received_usd: '10.00', deposits: [deposit({})] };
    expect(shortfallOf(p, screenOf(p))).toEqual({ inUsd: false, received: '0.004', due: '0.01', rest: '0.006' });
  });

  it('an underpaid payment paid in part in another coin says it in dollars, not "0 ETH of 0.01 ETH"', () => {
    const other = deposit({ token: 'USDT_ERC20', amount: '10', usd_value: '10.00', counted: true });
    const p = { ...base, status: 'underpaid' as const, received_amount: '0', received_usd: '10.00', deposits: [other] };
    expect(shortfallOf(p, screenOf(p))).toEqual({ inUsd: true, received: '10.00', due: '25.00', rest: '15.00' });
    // Both coins: every counted dollar, the payment's coin at its locked rate included.
    const both = { ...p, received_amount: '0.002', received_usd: '15.00', deposits: [deposit({ amount: '0.002', usd_value: '5.00' }), other] };
    expect(shortfallOf(both, screenOf(both))).toEqual({ inUsd: true, received: '15.00', due: '25.00', rest: '10.00' });
  });

  it('the simulate panel: test mode, pending or partially paid, nothing running', () => {
    expect(screenOf(base).canSimulate).toBe(true);
    expect(screenOf({ ...base, livemode: true }).canSimulate).toBe(false);
    expect(screenOf({ ...base, status: 'detecting' }).canSimulate).toBe(false);
    expect(screenOf({ ...base, simulation: { outcome: 'confirmed', state: 'running' } }).canSimulate).toBe(false);
    expect(screenOf({ ...base, simulation: { outcome: 'partially_paid', state: 'done' }, status: 'partially_paid' }).canSimulate).toBe(true);
  });
});

describe('the price in parts', () => {
  it('fees kept by the merchant: the price is the total', () => {
    expect(breakdownOf({ ...base, fees_paid_by_customer: false, network_fee_usd: '1.20' })).toEqual({ price: '25.00', total: '25.00' });
  });

  it('fees passed on: network fee, service fee and the exchange top-up', () => {
    const p = { ...base, fees_paid_by_customer: true, usd_amount: '25.00', network_fee_usd: '1.00', amount_due_usd: '27.28' };
    expect(breakdownOf(p)).toEqual({ price: '25.00', networkFee: '1.00', serviceFee: '1.28', total: '27.28' });
    expect(breakdownOf({ ...p, amount_due_usd: '40.00', extra_usd: '12.72' })).toEqual({ price: '25.00', networkFee: '1.00', serviceFee: '1.28', extra: '12.72', total: '40.00' });
  });

  it('the parts add up to the total (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 8n }), fc.bigInt({ min: 0n, max: 10n ** 4n }), fc.bigInt({ min: 20n, max: 10n ** 5n }), fc.bigInt({ min: 0n, max: 10n ** 5n }),
      (price, fee, service, extra) => {
        const b = breakdownOf({ ...base, fees_paid_by_customer: true, usd_amount: dollars(price), network_fee_usd: dollars(fee), extra_usd: dollars(extra), amount_due_usd: dollars(price + fee + service + extra) });
        const sum = [b.price, b.networkFee, b.serviceFee, b.extra].reduce((a, x) => a + (cents(x) ?? 0n), 0n);
        expect(sum).toBe(cents(b.total));
      }));
  });
});
