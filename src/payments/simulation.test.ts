import { describe, expect, it } from 'vitest';
import { checkSimulation, otherCoinOf, OUTCOME_STEPS } from './simulation.ts';
import { SIMULATION_OUTCOMES } from './create-input.ts';
import type { PaymentRow } from './schema.ts';

const row = (over: Partial<PaymentRow>): PaymentRow => ({ livemode: false, status: 'pending', token: 'ETH', simulation: null, ...over }) as PaymentRow;
const message = (p: PaymentRow, outcome: unknown): string => {
  try { checkSimulation(p, outcome); return 'ok'; } catch (err) { return (err as Error).message; }
};

describe('checkSimulation', () => {
  it('checks in the order of spec 7', () => {
    expect(message(row({ livemode: true, status: 'confirmed' }), undefined)).toBe('outcome is required');
    expect(message(row({ livemode: true }), 'sideways')).toMatch(/^simulate must be one of: confirmed, overpaid, /);
    expect(message(row({ livemode: true, status: 'confirmed' }), 'confirmed')).toBe('only test payments can be simulated: use a test key');
    expect(message(row({ status: 'detecting' }), 'confirmed')).toBe('this payment is detecting: only a pending or partially paid payment can be simulated');
    expect(message(row({ simulation: { outcome: 'confirmed', state: 'running' } }), 'confirmed')).toBe('a simulation is already running for this payment');
    expect(message(row({ simulation: { outcome: 'confirmed', state: 'done' }, status: 'partially_paid' }), 'confirmed')).toBe('ok');
    expect(message(row({ token: '' }), 'confirmed')).toBe("choose the payment's coin first");
    expect(message(row({ token: '' }), 'expired')).toBe('ok');
  });

  it.each([['BTC'], ['LTC'], ['DOGE'], ['XRP']])('refuses wrong_asset on %s, a chain with one coin', (token) => {
    expect(message(row({ token }), 'wrong_asset')).toBe(`a ${token} address only receives ${token}: wrong_asset needs a coin on Tron, Ethereum or BNB Smart Chain`);
  });

  it('finds another coin on the chain of every multi-coin chain', () => {
    expect(otherCoinOf('ETH')).toBe('USDT_ERC20');
    expect(otherCoinOf('USDT_ERC20')).toBe('ETH');
    expect(otherCoinOf('USDT_TRC20')).toBe('TRX');
    expect(otherCoinOf('BNB')).toBe('USDT_BEP20');
  });

  it('plays every outcome in at least one step', () => {
    for (const o of SIMULATION_OUTCOMES) expect(OUTCOME_STEPS[o].length).toBeGreaterThan(0);
  });
});
