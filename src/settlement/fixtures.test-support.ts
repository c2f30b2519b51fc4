// Shared plain values for the planner's tests: a market like CONTRACT.md's sample, addresses, payments.
import { dec, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { PlanDeposit, PlanInput, PlanPayment } from './plan.ts';
import type { MarketQuotes, PayoutAddressInput } from './types.ts';

export const T0 = new Date('2026-01-10T12:00:00Z');
export const HOUR = 3_600_000;
export const at = (hours: number): Date => new Date(T0.getTime() + hours * HOUR);

const d = (m: Record<string, string>): Partial<Record<TokenSymbol, Decimal>> =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, dec(v)])) as Partial<Record<TokenSymbol, Decimal>>;

export const RATES = {
  BTC: '60000', LTC: '80', DOGE: '0.15', ETH: '3000', USDT_ERC20: '1', USDC_ERC20: '1', BNB: '600',
  USDT_BEP20: '1', USDC_BEP20: '1', TRX: '0.25', USDT_TRC20: '1', XRP: '0.5',
};

export function market(extra: Partial<MarketQuotes> = {}): MarketQuotes {
  return {
    rates: d(RATES),
    network_fee_usd: d({ BTC: '1.5', LTC: '0.05', DOGE: '0.1', ETH: '0.8', USDT_ERC20: '2', USDC_ERC20: '2', BNB: '0.1', USDT_BEP20: '0.2', USDC_BEP20: '0.2', TRX: '0.3', USDT_TRC20: '1', XRP: '0.01' }),
    exchange_min_usd: d({ BTC: '20', LTC: '10', DOGE: '10', ETH: '15', USDT_ERC20: '10', USDC_ERC20: '10', BNB: '10', USDT_BEP20: '10', USDC_BEP20: '10', TRX: '10', USDT_TRC20: '10', XRP: '10' }),
    ...extra,
  };
}

let seq = 0;
export function address(token: TokenSymbol, opts: Partial<PayoutAddressInput> & { ageHours?: number } = {}): PayoutAddressInput {
  const created = opts.created_at ?? at(-(opts.ageHours ?? 100));
  return {
    id: opts.id ?? `pa_${token}_${++seq}`, token, address: opts.address ?? `${token.toLowerCase()}-wallet`,
    default: opts.default ?? true, created_at: created, active_at: opts.active_at ?? created,
    ...(opts.tag !== undefined ? { tag: opts.tag } : token === 'XRP' ? { tag: 12345 } : {}),
    ...(opts.refused !== undefined ? { refused: opts.refused } : {}),
  };
}

export function payment(opts: Partial<PlanPayment> = {}): PlanPayment {
  return { id: 'pay_1', livemode: true, token: '', fee_bps: 100, settlement: 'direct', convert_into: 'cheapest', ...opts };
}

/** A deposit of `whole` coins (decimal string) valued at the sample rate. */
export function deposit(token: TokenSymbol, whole: string, tx = `tx_${++seq}`): PlanDeposit {
  const units = BigInt(dec(whole).mul(dec(10).pow(TOKEN_DEFS[token].decimals)).toFixed(0));
  return { tx_id: tx, token, amount: units, usd_value: dec(whole).mul(RATES[token]), final_at: T0 };
}

export function input(token: TokenSymbol, whole: string, opts: Partial<PlanInput> = {}): PlanInput {
  return { payment: payment(), deposits: [deposit(token, whole, 'tx_a')], addresses: [], market: market(), now: T0, ...opts };
}
