import { describe, expect, it } from 'vitest';
import { dec } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { address, at, market, T0 } from './fixtures.test-support.ts';
import { conversionFeeBps, NOTE_BELOW_EXCHANGE_MINIMUM, NOTE_CANNOT_PAY_OUT, NOTE_EXCHANGE_REFUSED, NOTE_NO_PAYOUT_COIN, routeCoin, type RouteInput } from './routing.ts';
import { canSwap, conversionVia } from './conversion-paths.ts';
import type { PayoutAddressInput } from './types.ts';

const BIG = 10n ** 30n; // an amount far above every exchange minimum
const route = (token: TokenSymbol, addresses: PayoutAddressInput[], extra: Partial<RouteInput> = {}) =>
  routeCoin({ token, livemode: true, settlement: 'direct', convert_into: 'cheapest', addresses, market: market(), amount: BIG, now: T0, ...extra });

describe('conversion paths (rule 5)', () => {
  it('swaps within Ethereum and BNB Smart Chain both ways, and TRX into USDT on Tron only', () => {
    expect(canSwap('ETH', 'USDC_ERC20')).toBe(true);
    expect(canSwap('USDC_ERC20', 'USDT_ERC20')).toBe(true);
    expect(canSwap('USDT_BEP20', 'BNB')).toBe(true);
    expect(canSwap('TRX', 'USDT_TRC20')).toBe(true);
    expect(canSwap('USDT_TRC20', 'TRX')).toBe(false);
    expect(canSwap('ETH', 'USDT_BEP20')).toBe(false);
  });
  it('uses an exchange across networks and nothing else on one network', () => {
    expect(conversionVia('BTC', 'USDT_TRC20')).toBe('exchange');
    expect(conversionVia('ETH', 'USDT_BEP20')).toBe('exchange');
    expect(conversionVia('USDT_TRC20', 'TRX')).toBeUndefined();
    expect(conversionVia('ETH', 'ETH')).toBeUndefined();
  });
});

describe('routeCoin', () => {
  it('sends a coin as it is to its own default address in use', () => {
    const other = address('BTC', { default: false, address: 'old', ageHours: 200 });
    const def = address('BTC', { address: 'main' });
    const r = route('BTC', [other, def, address('USDT_TRC20')]);
    expect(r).toMatchObject({ kind: 'as_is', token: 'BTC' });
    expect(r.kind === 'as_is' && r.address.address).toBe('main');
    expect(conversionFeeBps(r)).toBe(0);
  });

  it('waits for the coin\'s own address that is not active yet, never converting (rule 3)', () => {
    const waiting = address('BTC', { active_at: at(10), ageHours: 14 });
    const r = route('BTC', [waiting, address('USDT_TRC20')]);
    expect(r).toMatchObject({ kind: 'awaits_address', token: 'BTC', until: at(10) });
  });

  it('caps the wait at 48 hours from the deposit, then converts as if there were no address', () => {
    const waiting = address('BTC', { active_at: at(60), ageHours: 1 });
    expect(route('BTC', [waiting, address('USDT_TRC20')], { deposit_at: T0 })).toMatchObject({ kind: 'awaits_address', until: at(48) });
    expect(route('BTC', [waiting, address('USDT_TRC20')], { deposit_at: at(-48) })).toMatchObject({ kind: 'exchange', to: 'USDT_TRC20' });
  });

  it('converts on the own network with a swap, across networks with an exchange (rule 4)', () => {
    expect(route('ETH', [address('USDC_ERC20')])).toMatchObject({ kind: 'swap', from: 'ETH', to: 'USDC_ERC20' });
    expect(route('TRX', [address('USDT_TRC20')])).toMatchObject({ kind: 'swap', to: 'USDT_TRC20' });
    expect(route('LTC', [address('USDT_TRC20')])).toMatchObject({ kind: 'exchange', to: 'USDT_TRC20' });
    expect(conversionFeeBps(route('LTC', [address('USDT_TRC20')]))).toBe(50);
  });

  it('cheapest prefers the lowest cost at that amount: a swap over an exchange that pays a network fee', () => {
    expect(route('ETH', [address('USDT_TRC20', { ageHours: 300 }), address('USDT_ERC20')])).toMatchObject({ kind: 'swap', to: 'USDT_ERC20' });
    // across networks, the exchange payout on the cheaper network wins
    expect(route('BTC', [address('USDT_ERC20'), address('USDT_BEP20')])).toMatchObject({ kind: 'exchange', to: 'USDT_BEP20' });
  });

  it('order: own-network stablecoin, else USDT_TRC20, else the oldest payout address', () => {
    const order = { convert_into: 'order' as const };
    expect(route('BNB', [address('USDT_TRC20'), address('USDC_BEP20'), address('BTC', { ageHours: 900 })], order)).toMatchObject({ to: 'USDC_BEP20' });
    expect(route('BNB', [address('USDT_TRC20'), address('BTC', { ageHours: 900 })], order)).toMatchObject({ to: 'USDT_TRC20' });
    expect(route('BNB', [address('LTC', { ageHours: 50 }), address('BTC', { ageHours: 900 })], order)).toMatchObject({ to: 'BTC' });
    expect(route('USDT_ERC20', [address('USDT_TRC20'), address('USDC_ERC20')], order)).toMatchObject({ kind: 'swap', to: 'USDC_ERC20' });
    // USDT_TRC20 cannot become TRX: the oldest address it converts into is used
    expect(route('USDT_TRC20', [address('TRX', { ageHours: 999 }), address('LTC', { ageHours: 10 })], order)).toMatchObject({ kind: 'exchange', to: 'LTC' });
  });

  it('a specific coin is used whenever the deposit converts into it, else the cheapest', () => {
    expect(route('ETH', [address('USDT_ERC20'), address('BTC')], { convert_into: 'BTC' })).toMatchObject({ kind: 'exchange', to: 'BTC' });
    expect(route('USDT_TRC20', [address('TRX'), address('USDT_BEP20')], { convert_into: 'TRX' })).toMatchObject({ kind: 'exchange', to: 'USDT_BEP20' });
  });

  it('keeps the deposit in the balance when it converts into none of the payout coins (rule 6)', () => {
    expect(route('USDT_TRC20', [address('TRX')])).toEqual({ kind: 'balance_fallback', from: 'USDT_TRC20', reason: NOTE_NO_PAYOUT_COIN });
    expect(route('BTC', [])).toEqual({ kind: 'balance_fallback', from: 'BTC', reason: NOTE_NO_PAYOUT_COIN });
  });

  it(`live: a coin the service cannot pay out from a hot wallet is no target: "${NOTE_CANNOT_PAY_OUT}"`, () => {
    const evmOnly = (t: TokenSymbol) => t === 'USDT_ERC20' || t === 'ETH';
    // the other address is used instead
    expect(route('BNB', [address('USDT_TRC20'), address('USDT_ERC20')], { can_pay_out: evmOnly })).toMatchObject({ kind: 'exchange', to: 'USDT_ERC20' });
    expect(route('BNB', [address('USDT_TRC20')], { can_pay_out: evmOnly })).toEqual({ kind: 'balance_fallback', from: 'BNB', reason: NOTE_CANNOT_PAY_OUT });
    // a coin sent as it is is not concerned
    expect(route('BNB', [address('BNB')], { can_pay_out: () => false })).toMatchObject({ kind: 'as_is' });
  });

  it('no payout address the gateway refuses is a target: another in use is chosen, else the balance with the refusal (rule 6)', () => {
    const refusal = 'address belongs to this gateway: use an address of your own wallet';
    const note = `payout address refused: ${refusal}`;
    const bad = address('USDT_BEP20', { refused: refusal });
    // cheapest would be USDT on BNB Smart Chain (the lower exchange payout): USDT on Ethereum instead
    expect(route('BTC', [address('USDT_ERC20'), bad])).toMatchObject({ kind: 'exchange', to: 'USDT_ERC20' });
    // a specific coin whose address is refused is not used either, nor is it first in `order`
    expect(route('ETH', [address('USDC_ERC20'), address('USDT_ERC20', { refused: refusal })], { convert_into: 'USDT_ERC20' })).toMatchObject({ kind: 'swap', to: 'USDC_ERC20' });
    expect(route('BNB', [address('USDT_TRC20'), address('USDC_BEP20', { refused: refusal })], { convert_into: 'order' })).toMatchObject({ to: 'USDT_TRC20' });
    // no other: kept in the balance, the address and why named
    expect(route('BTC', [bad])).toEqual({ kind: 'balance_fallback', from: 'BTC', reason: note, refused: { id: bad.id, refusal } });
    // the coin's own address refused: kept in the balance, neither sent as it is nor waited for
    const own = address('BTC', { refused: refusal });
    expect(route('BTC', [own, address('USDT_TRC20')])).toEqual({ kind: 'balance_fallback', from: 'BTC', reason: note, refused: { id: own.id, refusal } });
    const waiting = address('BTC', { refused: refusal, active_at: at(10), ageHours: 14 });
    expect(route('BTC', [waiting])).toEqual({ kind: 'balance_fallback', from: 'BTC', reason: note, refused: { id: waiting.id, refusal } });
  });

  it('a conversion refused at execution is kept in the balance with the refusal as its note', () => {
    expect(route('ETH', [address('USDT_ERC20')], { refuse_conversion: 'swap result below quote' }))
      .toEqual({ kind: 'balance_fallback', from: 'ETH', reason: 'swap result below quote' });
    // even when the coin's own address came meanwhile: the deposit already left for the service's wallet
    expect(route('ETH', [address('ETH')], { refuse_conversion: 'swap result below quote' })).toEqual({ kind: 'balance_fallback', from: 'ETH', reason: 'swap result below quote' });
  });

  it('needs the exchange minimum with a tenth to spare', () => {
    // BTC minimum $20: $22 passes, $21.99 does not (60000 $/BTC)
    const units = (usd: string) => BigInt(dec(usd).div(60000).mul(1e8).toFixed(0));
    expect(route('BTC', [address('USDT_TRC20')], { amount: units('22') })).toMatchObject({ kind: 'exchange' });
    const small = route('BTC', [address('USDT_TRC20')], { amount: units('21.99') });
    expect(small).toEqual({ kind: 'balance_fallback', from: 'BTC', reason: NOTE_BELOW_EXCHANGE_MINIMUM });
    expect(conversionFeeBps(small)).toBe(150);
  });

  it('falls back when the exchange is unavailable', () => {
    const m = market({ exchange: { available: false } });
    expect(route('BTC', [address('USDT_TRC20')], { market: m })).toMatchObject({ kind: 'balance_fallback', reason: NOTE_EXCHANGE_REFUSED });
  });

  it('custodial and scheduled buy every coin into USDT_TRC20 at 1.5%, USDT_TRC20 as it is', () => {
    for (const settlement of ['custodial', 'scheduled'] as const) {
      const r = route('BTC', [address('BTC')], { settlement });
      expect(r).toEqual({ kind: 'platform', from: 'BTC', to: 'USDT_TRC20' });
      expect(conversionFeeBps(r)).toBe(150);
      expect(route('USDT_TRC20', [], { settlement })).toEqual({ kind: 'balance', token: 'USDT_TRC20' });
    }
  });

  it('test mode never converts: a test address of the coin, else the test balance (rule 8)', () => {
    expect(route('BTC', [address('BTC')], { livemode: false })).toMatchObject({ kind: 'as_is', token: 'BTC' });
    expect(route('BTC', [address('USDT_TRC20')], { livemode: false })).toEqual({ kind: 'balance', token: 'BTC' });
    expect(route('ETH', [address('USDT_ERC20')], { livemode: false, settlement: 'custodial' })).toEqual({ kind: 'balance', token: 'ETH' });
    expect(route('ETH', [address('ETH')], { livemode: false, settlement: 'scheduled' })).toEqual({ kind: 'balance', token: 'ETH' });
  });
});
