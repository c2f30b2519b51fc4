import { describe, expect, it } from 'vitest';
import { dec } from '../money/index.ts';
import { address, at, deposit, input, market, payment, T0 } from './fixtures.test-support.ts';
import { NOTE_SMALLER_THAN_FEES, NOTE_WAITING_PRICE, planSettlement, type SettlementPlan } from './plan.ts';
import { planPaymentSettlements } from './group.ts';
import { sumByToken } from './ledger.ts';
import { NOTE_BELOW_EXCHANGE_MINIMUM, NOTE_NO_PAYOUT_COIN } from './routing.ts';
import { NOTE_SWAP_BELOW_QUOTE, NOTE_SWAP_PRICE_OFF_MARKET } from './swap-guard.ts';

const usd = (p: SettlementPlan) => [p.usd_value, p.service_fee_usd, p.network_fee_usd, p.conversion_fee_usd, p.net_usd].map((v) => v.toFixed());
const types = (p: SettlementPlan) => p.ledger.map((e) => `${e.type}:${e.token}:${e.amount}`);

describe('planSettlement: direct', () => {
  it('sends BTC as it is: 1% fee, network fee at the market, two transfers', () => {
    const p = planSettlement(input('BTC', '0.001', { addresses: [address('BTC', { address: 'bc1merchant' })] }));
    expect(p).toMatchObject({ mode: 'direct', token: 'BTC', chain: 'bitcoin', status: 'pending', destination: 'bc1merchant', deposit_tx: 'tx_a' });
    expect([p.amount, p.service_fee, p.network_fee, p.conversion_fee, p.net]).toEqual([100000n, 1000n, 2500n, 0n, 96500n]);
    expect(usd(p)).toEqual(['60', '0.6', '1.5', '0', '57.9']);
    expect(p.usd_rate.toFixed()).toBe('60000');
    expect(p.conversion).toBeUndefined();
    expect(p.transfers).toEqual([
      { purpose: 'settlement', token: 'BTC', amount: 96500n, address: 'bc1merchant' },
      { purpose: 'service_fee', token: 'BTC', amount: 3500n },
    ]);
    expect(types(p)).toEqual(['payment_credit:BTC:100000', 'fee:BTC:-1000', 'network_fee:BTC:-2500', 'settlement:BTC:-96500']);
    expect(p.ledger.every((e) => e.reference === 'pay_1:tx_a')).toBe(true);
    expect(p.balance_credit).toEqual([]);
  });

  it('takes at least $0.20 of service fee, at the locked rate for the payment\'s own coin', () => {
    expect(planSettlement(input('BTC', '0.0001', { addresses: [address('BTC')] })).service_fee).toBe(334n); // 0.2/60000 up at 8 places
    const locked = input('BTC', '0.0001', { addresses: [address('BTC')], payment: payment({ token: 'BTC', rate_locked: dec(50000) }) });
    expect(planSettlement(locked).service_fee).toBe(400n);
  });

  it('XRP: one transfer to the payout address with its tag; the fee stays (rule 7)', () => {
    const p = planSettlement(input('XRP', '100', { addresses: [address('XRP', { address: 'rMerchant', tag: 77 })] }));
    expect(p).toMatchObject({ destination: 'rMerchant', destination_tag: 77, status: 'pending' });
    expect(p.transfers).toEqual([{ purpose: 'settlement', token: 'XRP', amount: p.net, address: 'rMerchant', tag: 77 }]);
  });

  it('awaits the coin\'s own address, plans nothing into the ledger yet (rule 3)', () => {
    const p = planSettlement(input('BTC', '0.001', { addresses: [address('BTC', { active_at: at(5) }), address('USDT_TRC20')] }));
    expect(p).toMatchObject({ status: 'pending', awaits_address: { until: at(5) }, replan_at: at(5), mode: 'direct', conversion_fee: 0n });
    expect(p.conversion).toBeUndefined();
    expect(p.ledger).toEqual([]);
  });

  it('swaps ETH into USDT on Ethereum with a 0.5% conversion fee and the least output accepted', () => {
    const p = planSettlement(input('ETH', '0.1', { addresses: [address('USDT_ERC20', { address: '0xM' })] }));
    expect(p.conversion).toMatchObject({ via: 'swap', from: 'ETH', to: 'USDT_ERC20', status: 'pending', amount_in: p.net });
    const afterFees = p.amount - p.service_fee - p.network_fee;
    expect(p.conversion_fee).toBe((afterFees * 50n + 9999n) / 10000n / 10n ** 10n * 10n ** 10n + ((afterFees * 50n + 9999n) / 10000n % 10n ** 10n ? 10n ** 10n : 0n));
    expect(p.conversion!.amount_out).toBe(p.net * 3000n / 10n ** 12n);
    expect(p.conversion!.min_amount_out).toBe((p.conversion!.amount_out * 995n + 999n) / 1000n);
    expect(p).toMatchObject({ mode: 'direct', status: 'pending', destination: '0xM' });
    expect(types(p)).toEqual([
      'payment_credit:ETH:100000000000000000', `fee:ETH:${-p.service_fee}`, `network_fee:ETH:${-p.network_fee}`, `conversion_fee:ETH:${-p.conversion_fee}`,
      `conversion_out:ETH:${-p.net}`, `conversion_in:USDT_ERC20:${p.conversion!.amount_out}`, `settlement:USDT_ERC20:${-p.conversion!.amount_out}`,
    ]);
  });

  it('converts BTC across networks through an exchange', () => {
    const p = planSettlement(input('BTC', '0.01', { addresses: [address('USDT_TRC20', { address: 'TMerchant' })] }));
    expect(p.conversion).toMatchObject({ via: 'exchange', to: 'USDT_TRC20', status: 'pending' });
    expect(p.conversion!.amount_out).toBe(p.net * 60000n / 100n);
    expect(p.transfers[0]).toEqual({ purpose: 'settlement', token: 'USDT_TRC20', amount: p.conversion!.amount_out, address: 'TMerchant' });
  });

  it('skips a swap whose price is off market, keeping the deposit in the balance (rules 5, 6)', () => {
    const m = market({ swap_quotes: [{ from: 'ETH', to: 'USDT_ERC20', price: dec(2900) }] });
    const p = planSettlement(input('ETH', '0.1', { addresses: [address('USDT_ERC20')], market: m }));
    expect(p).toMatchObject({ mode: 'custodial', status: 'completed', note: NOTE_SWAP_PRICE_OFF_MARKET });
    expect(p.conversion).toMatchObject({ via: 'swap', status: 'skipped', note: NOTE_SWAP_PRICE_OFF_MARKET });
    expect(p.balance_purchase).toMatchObject({ via: 'platform', from: 'ETH', to: 'USDT_TRC20', status: 'done', amount_in: p.net });
    expect(p.balance_credit).toEqual([{ token: 'USDT_TRC20', amount: p.balance_purchase!.amount_out }]);
    expect(p.conversion_fee).toBeGreaterThan(0n); // bought for the balance at 1.5%
    const within = market({ swap_quotes: [{ from: 'ETH', to: 'USDT_ERC20', price: dec(2950) }] });
    expect(planSettlement(input('ETH', '0.1', { addresses: [address('USDT_ERC20')], market: within })).conversion?.status).toBe('pending');
  });

  it('refuses a swap result more than 0.5% below the quote, 1% for stablecoin pairs', () => {
    const quoteOut = (from: 'ETH' | 'USDC_ERC20', shortBy: string, whole: string) => {
      const probe = planSettlement(input(from, whole, { addresses: [address('USDT_ERC20')] }));
      const out = BigInt(dec(probe.conversion!.amount_out).mul(dec(1).minus(shortBy)).toFixed(0, 1));
      const m = market({ swap_quotes: [{ from, to: 'USDT_ERC20', price: from === 'ETH' ? dec(3000) : dec(1), expected_out: out, amount_in: probe.net }] });
      return planSettlement(input(from, whole, { addresses: [address('USDT_ERC20')], market: m }));
    };
    expect(quoteOut('ETH', '0.004', '0.1').conversion?.status).toBe('pending');
    expect(quoteOut('ETH', '0.006', '0.1')).toMatchObject({ note: NOTE_SWAP_BELOW_QUOTE, conversion: { status: 'skipped' } });
    expect(quoteOut('USDC_ERC20', '0.008', '500').conversion?.status).toBe('pending');
    expect(quoteOut('USDC_ERC20', '0.012', '500')).toMatchObject({ note: NOTE_SWAP_BELOW_QUOTE });
  });

  it('takes a swap result exactly at the least it accepts, and skips one a base unit short of it', () => {
    const to = { addresses: [address('USDT_ERC20')] };
    const probe = planSettlement(input('ETH', '0.1', to));
    const least = probe.conversion!.min_amount_out!;
    const quoted = (expected_out: bigint) =>
      planSettlement(input('ETH', '0.1', { ...to, market: market({ swap_quotes: [{ from: 'ETH', to: 'USDT_ERC20', price: dec(3000), expected_out, amount_in: probe.net }] }) }));
    expect(quoted(least)).toMatchObject({ status: 'pending', conversion: { via: 'swap', status: 'pending', amount_out: least, min_amount_out: least } });
    expect(quoted(least - 1n)).toMatchObject({ note: NOTE_SWAP_BELOW_QUOTE, conversion: { status: 'skipped', amount_out: least - 1n } });
  });

  it('falls back below the exchange minimum and pays the USDT balance out automatically (rule 6)', () => {
    const addrs = [address('USDT_ERC20', { id: 'eth' }), address('USDT_BEP20', { id: 'bsc' })];
    const p = planSettlement(input('BTC', '0.0003', { addresses: [address('USDT_TRC20'), ...addrs] }));
    expect(p).toMatchObject({ mode: 'custodial', note: NOTE_BELOW_EXCHANGE_MINIMUM, conversion: { via: 'platform', status: 'done' } });
    expect(p.payout_request).toMatchObject({ requested_by: 'auto', token: 'USDT_BEP20', address_id: 'bsc', from_token: 'USDT_TRC20', amount: p.balance_credit[0].amount });
    // both sides of the purchase say why in the statement
    expect(p.ledger.filter((e) => e.type === 'conversion_out' || e.type === 'conversion_in').map((e) => [e.type, e.token, e.note]))
      .toEqual([['conversion_out', 'BTC', NOTE_BELOW_EXCHANGE_MINIMUM], ['conversion_in', 'USDT_TRC20', NOTE_BELOW_EXCHANGE_MINIMUM]]);
    // Ethereum when there is no BSC address; under $10 in all it waits
    expect(planSettlement(input('BTC', '0.0003', { addresses: [addrs[0]] })).payout_request?.address_id).toBe('eth');
    expect(planSettlement(input('BTC', '0.00018', { addresses: [addrs[0]] })).payout_request).toBeUndefined();
    expect(planSettlement(input('BTC', '0.00018', { addresses: [addrs[0]], balance_available: 5_000_000n })).payout_request?.amount)
      .toBeGreaterThan(10_000_000n);
  });

  it('keeps USDT_TRC20 that converts into nothing in the balance as it is', () => {
    const p = planSettlement(input('USDT_TRC20', '50', { addresses: [address('TRX')] }));
    expect(p).toMatchObject({ note: NOTE_NO_PAYOUT_COIN, conversion_fee: 0n, mode: 'custodial' });
    expect(p.conversion).toBeUndefined();
    expect(p.balance_credit).toEqual([{ token: 'USDT_TRC20', amount: p.net }]);
  });

  it('holds a deposit smaller than its fees, noting why', () => {
    const p = planSettlement(input('BTC', '0.000025', { addresses: [address('BTC')] }));
    expect(p).toMatchObject({ status: 'held', note: NOTE_SMALLER_THAN_FEES, net: 0n, transfers: [], balance_credit: [] });
    expect(p.service_fee + p.network_fee).toBe(p.amount);
    expect(p.net_usd.toFixed()).toBe('0');
  });

  it('holds a deposit its fees take exactly, and settles one a cent larger', () => {
    // USDT_TRC20: the $0.20 floor of the service fee and the $1 network fee are 1.2 USDT
    const exact = planSettlement(input('USDT_TRC20', '1.2', { addresses: [address('USDT_TRC20')] }));
    expect(exact).toMatchObject({ status: 'held', service_fee: 200_000n, network_fee: 1_000_000n, net: 0n, transfers: [], balance_credit: [] });
    const more = planSettlement(input('USDT_TRC20', '1.21', { addresses: [address('USDT_TRC20')] }));
    expect(more).toMatchObject({ service_fee: 200_000n, network_fee: 1_000_000n, net: 10_000n });
    expect(more.status).not.toBe('held');
  });
});

describe('planSettlement: custodial and test mode', () => {
  it('custodial buys the coin at market into USDT_TRC20 at 1.5%', () => {
    const p = planSettlement(input('LTC', '1', { payment: payment({ settlement: 'custodial' }) }));
    expect(p).toMatchObject({ mode: 'custodial', status: 'completed', completed_at: T0, conversion: { via: 'platform', to: 'USDT_TRC20', status: 'done' } });
    const afterFees = p.amount - p.service_fee - p.network_fee;
    expect(p.conversion_fee).toBe((afterFees * 150n + 9999n) / 10000n);
    expect(p.balance_credit).toEqual([{ token: 'USDT_TRC20', amount: p.net * 80n / 100n }]);
    expect(Object.fromEntries(sumByToken(p.ledger))).toEqual({ USDT_TRC20: p.net * 80n / 100n });
  });

  it('holds a deposit whose conversion fee takes exactly what the other fees leave, and converts one a step larger', () => {
    // ETH at 3000: $0.20 floor 0.00006667 + $0.80 network fee 0.00026667, one 0.00000001 step left,
    // whose 1.5% conversion fee rounds up to that whole step
    const custodial = payment({ settlement: 'custodial' });
    const exact = planSettlement(input('ETH', '0.00033335', { payment: custodial }));
    expect(exact).toMatchObject({ status: 'held', note: NOTE_SMALLER_THAN_FEES, conversion_fee: 10n ** 10n, net: 0n, balance_credit: [] });
    expect(exact.conversion).toBeUndefined();
    const more = planSettlement(input('ETH', '0.00033336', { payment: custodial }));
    expect(more).toMatchObject({ status: 'completed', conversion_fee: 10n ** 10n, net: 10n ** 10n, conversion: { via: 'platform', amount_in: 10n ** 10n } });
  });

  it('custodial credits USDT_TRC20 as it is, with no conversion fee', () => {
    const p = planSettlement(input('USDT_TRC20', '100', { payment: payment({ settlement: 'scheduled' }) }));
    expect([p.service_fee, p.network_fee, p.conversion_fee, p.net]).toEqual([1_000_000n, 1_000_000n, 0n, 98_000_000n]);
    expect(p.usd_rate.toFixed()).toBe('1');
    expect(p.balance_credit).toEqual([{ token: 'USDT_TRC20', amount: 98_000_000n }]);
  });

  it('test mode: completes at once to a test address with no tx, else credits the test balance in the coin', () => {
    const test = payment({ livemode: false });
    const toWallet = planSettlement(input('ETH', '0.1', { payment: test, addresses: [address('ETH'), address('USDT_ERC20')] }));
    expect(toWallet).toMatchObject({ mode: 'direct', status: 'completed', completed_at: T0, transfers: [], conversion_fee: 0n });
    const toBalance = planSettlement(input('ETH', '0.1', { payment: test, addresses: [address('USDT_ERC20')] }));
    expect(toBalance).toMatchObject({ mode: 'custodial', status: 'completed', balance_credit: [{ token: 'ETH', amount: toBalance.net }] });
    expect(toBalance.conversion).toBeUndefined();
  });
});

describe('planSettlement: a live coin with no current price', () => {
  const without = (...tokens: string[]) => {
    const m = market();
    return { ...m, rates: Object.fromEntries(Object.entries(m.rates).filter(([t]) => !tokens.includes(t))) };
  };

  it('waits, taking nothing and moving nothing, when the coin or the coin it converts into has no rate', () => {
    const custodial = planSettlement(input('LTC', '1', { payment: payment({ settlement: 'custodial' }), market: without('LTC') }));
    expect(custodial).toMatchObject({
      status: 'pending', note: NOTE_WAITING_PRICE, mode: 'custodial', replan_at: new Date(T0.getTime() + 60_000),
      amount: 100_000_000n, service_fee: 0n, network_fee: 0n, conversion_fee: 0n, net: 100_000_000n, transfers: [], ledger: [], balance_credit: [],
    });
    expect(usd(custodial)).toEqual(['80', '0', '0', '0', '80']);
    // converted into USDT_TRC20, whose market price is missing (off its peg)
    const into = planSettlement(input('LTC', '1', { payment: payment({ settlement: 'custodial' }), market: without('USDT_TRC20') }));
    expect(into.note).toBe(NOTE_WAITING_PRICE);
    // direct, no LTC address: the exchange conversion needs LTC's rate
    expect(planSettlement(input('LTC', '1', { addresses: [address('USDT_TRC20')], market: without('LTC') })).note).toBe(NOTE_WAITING_PRICE);
  });

  it('settles its own coin at the locked rate, sent as it is: no market rate needed', () => {
    const p = planSettlement(input('BTC', '0.001', { payment: payment({ token: 'BTC', rate_locked: dec(60000) }), addresses: [address('BTC')], market: without('BTC') }));
    expect(p).toMatchObject({ status: 'pending', mode: 'direct', service_fee: 1000n });
    expect(p.note).toBeUndefined();
  });

  it('a test plan never waits: a missing rate there is a bug', () => {
    expect(() => planSettlement(input('LTC', '1', { payment: payment({ livemode: false, settlement: 'custodial' }), market: without('LTC') }))).toThrow('no market rate for LTC');
  });
});

describe('payments paid in parts', () => {
  it('settles the deposits of one coin once: one service fee on the total, one network fee', () => {
    const deposits = [deposit('BTC', '0.0004', 't1'), deposit('BTC', '0.0006', 't2')];
    const p = planSettlement({ ...input('BTC', '0'), deposits, addresses: [address('BTC')] });
    expect(p).toMatchObject({ deposit_tx: 't1', deposit_txs: ['t1', 't2'], amount: 100000n, service_fee: 1000n, network_fee: 2500n });
    const single = planSettlement({ ...input('BTC', '0'), deposits: [deposits[0]], addresses: [address('BTC')] });
    expect(single.deposit_txs).toBeUndefined();
  });

  it('makes one plan per coin', () => {
    const deposits = [deposit('BTC', '0.0004', 't1'), deposit('ETH', '0.01', 't2'), deposit('BTC', '0.0006', 't3')];
    const plans = planPaymentSettlements({ ...input('BTC', '0'), deposits, addresses: [address('BTC'), address('ETH')] });
    expect(plans.map((p) => [p.token, p.deposit_txs ?? [p.deposit_tx]])).toEqual([['BTC', ['t1', 't3']], ['ETH', ['t2']]]);
  });

  it('refuses a plan of mixed coins or no deposit', () => {
    expect(() => planSettlement({ ...input('BTC', '0'), deposits: [] })).toThrow();
    expect(() => planSettlement({ ...input('BTC', '0'), deposits: [deposit('BTC', '1'), deposit('LTC', '1')] })).toThrow();
  });
});
