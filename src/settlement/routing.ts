// Where a coin's money goes (spec 1, Settlement modes and direct rules 3, 4, 6, 8). Used by the
// planner and by pricing (a converted coin adds the conversion share `network_fee_bps`).
import { dec, unitsToDecimal, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, TOKENS, type TokenSymbol } from '../tokens/index.ts';
import {
  BALANCE_TOKEN, CONVERT_FEE_BPS, EXCHANGE_MIN_MARGIN, PLATFORM_FEE_BPS, conversionVia, rateOf,
} from './conversion-paths.ts';
import { addressFor, coinsInUse } from './payout-addresses.ts';
import type { ConvertInto, MarketQuotes, PayoutAddressInput, SettlementSetting } from './types.ts';

/** Rule 6 notes: why a deposit was kept in the balance instead of converted. */
export const NOTE_NO_PAYOUT_COIN = 'converts into none of the payout coins';
export const NOTE_BELOW_EXCHANGE_MINIMUM = 'too small for the exchange minimum';
export const NOTE_EXCHANGE_REFUSED = 'exchange refused the conversion';
/** Rule 6 note: the payout address the deposit would go to is one no payout may go to (refused-address.ts). */
export const refusedAddressNote = (refusal: string): string => `payout address refused: ${refusal}`;
/** Live conversions are paid from the service's hot wallet of the payout coin's network: none can send there. */
export const NOTE_CANNOT_PAY_OUT = "the service cannot send on the payout coin's network";

export interface RouteInput {
  token: TokenSymbol;
  livemode: boolean;
  settlement: SettlementSetting;
  convert_into: ConvertInto;
  /** Payout addresses in force for the payment's mode. */
  addresses: readonly PayoutAddressInput[];
  market: MarketQuotes;
  /** Base units of `token` that would be converted (for the exchange minimum and cheapest cost). */
  amount: bigint;
  now: Date;
  /** When the deposit became final: rule 3's 48 h cap counts from it. Default `now`. */
  deposit_at?: Date;
  /**
   * Live: whether the service can pay out a coin from its own hot wallet (its network has a sending
   * family and a node). A coin it cannot pay out is no conversion target. Absent: every coin.
   */
  can_pay_out?: (to: TokenSymbol, from: TokenSymbol) => boolean;
  /** Rule 6 forced: a conversion the executor refused (price moved); kept in the balance with this note. */
  refuse_conversion?: string;
  /**
   * Pricing a payment, not settling a deposit: the exchange minimum is the price's to meet (spec 1
   * Fees: the customer is asked for enough to reach it, or the coin is offered only from the price
   * that reaches it), so it leaves no exchange out.
   */
  pricing?: boolean;
}

export type Route =
  /** Sent as it is to the coin's own address in use (a test address in test mode). */
  | { kind: 'as_is'; token: TokenSymbol; address: PayoutAddressInput }
  /** Rule 3: the coin's own address is not active yet; wait, never convert. */
  | { kind: 'awaits_address'; token: TokenSymbol; address: PayoutAddressInput; until: Date }
  | { kind: 'swap' | 'exchange'; from: TokenSymbol; to: TokenSymbol; address: PayoutAddressInput }
  /** Custodial/scheduled: bought by the service into the USDT_TRC20 balance. */
  | { kind: 'platform'; from: TokenSymbol; to: TokenSymbol }
  /** Credited to the balance as it is: USDT_TRC20 in custodial mode, any coin in test mode. */
  | { kind: 'balance'; token: TokenSymbol }
  /**
   * Rule 6: conversion impossible, kept in the balance (bought for USDT_TRC20 unless it is that);
   * `refused`: a payout address it would have gone to is one no payout may go to (the team is told).
   */
  | { kind: 'balance_fallback'; from: TokenSymbol; reason: string; refused?: RefusedAddress };

/** A payout address no payout may go to (PayoutAddressInput.refused), and why. */
export interface RefusedAddress { id: string; refusal: string }

const refusedOf = (a: PayoutAddressInput): RefusedAddress | undefined => (a.refused === undefined ? undefined : { id: a.id, refusal: a.refused });

/** Conversion fee share of a route in basis points (pricing's `network_fee_bps`); 0 when not converted. */
export function conversionFeeBps(route: Route): number {
  switch (route.kind) {
    case 'swap': case 'exchange': return CONVERT_FEE_BPS;
    case 'platform': return PLATFORM_FEE_BPS;
    case 'balance_fallback': return route.from === BALANCE_TOKEN ? 0 : PLATFORM_FEE_BPS;
    default: return 0;
  }
}

export function routeCoin(input: RouteInput): Route {
  const { token, livemode, settlement, addresses, now } = input;
  if (!livemode) {
    // Rule 8: test coins are never converted; a custodial merchant's test money stays in the test balance.
    const own = settlement === 'direct' ? addressFor(token, addresses, now, now) : { state: 'none' as const };
    return own.state === 'none' ? { kind: 'balance', token } : { kind: 'as_is', token, address: own.address };
  }
  if (settlement !== 'direct') return token === BALANCE_TOKEN ? { kind: 'balance', token } : { kind: 'platform', from: token, to: BALANCE_TOKEN };
  const own = addressFor(token, addresses, now, input.deposit_at ?? now);
  // a conversion the executor refused is kept in the balance, whatever address came meanwhile (its coins already moved)
  if (input.refuse_conversion) return { kind: 'balance_fallback', from: token, reason: input.refuse_conversion };
  // the coin's own address is one no payout may go to: kept in the balance (rule 6), the merchant told to change it
  const ownRefused = own.state === 'none' ? undefined : refusedOf(own.address);
  if (ownRefused) return { kind: 'balance_fallback', from: token, reason: refusedAddressNote(ownRefused.refusal), refused: ownRefused };
  if (own.state === 'in_use') return { kind: 'as_is', token, address: own.address };
  if (own.state === 'waiting') return { kind: 'awaits_address', token, address: own.address, until: own.until };
  return chooseConversion(input);
}

interface Candidate { to: TokenSymbol; via: 'swap' | 'exchange'; address: PayoutAddressInput; oldest: Date; cost: Decimal }

/** Rule 4: the payout coin a deposit with no address of its own is converted into. */
function chooseConversion(input: RouteInput): Route {
  const { token, market } = input;
  const amountUsd = unitsToDecimal(input.amount, TOKEN_DEFS[token].decimals).mul(rateOf(market.rates, token));
  const viable: Candidate[] = [];
  let reason = NOTE_NO_PAYOUT_COIN;
  let refused: RefusedAddress | undefined;
  for (const c of coinsInUse(input.addresses, input.now)) {
    const via = conversionVia(token, c.token);
    if (!via) continue;
    // an address no payout may go to is no target: another one is, else the balance (rule 6)
    const no = refusedOf(c.address);
    if (no) { refused = no; reason = refusedAddressNote(no.refusal); continue; }
    if (input.can_pay_out && !input.can_pay_out(c.token, token)) { reason = NOTE_CANNOT_PAY_OUT; continue; }
    if (via === 'exchange') {
      if (market.exchange && !market.exchange.available) { reason = market.exchange.note ?? NOTE_EXCHANGE_REFUSED; continue; }
      const min = market.exchange_min_usd[token] ?? dec(0);
      if (!input.pricing && amountUsd.lt(min.mul(EXCHANGE_MIN_MARGIN))) { reason = NOTE_BELOW_EXCHANGE_MINIMUM; continue; }
    }
    viable.push({ to: c.token, via, address: c.address, oldest: c.oldest, cost: conversionCostUsd(token, c.token, via, amountUsd, market) });
  }
  if (viable.length === 0) return { kind: 'balance_fallback', from: token, reason, ...(refused ? { refused } : {}) };
  const pick = pickByConvertInto(input.convert_into, token, viable);
  return { kind: pick.via, from: token, to: pick.to, address: pick.address };
}

/** Cost at that amount: the conversion fee, the exchange's payout on the target network, a swap's price gap. */
function conversionCostUsd(from: TokenSymbol, to: TokenSymbol, via: 'swap' | 'exchange', amountUsd: Decimal, market: MarketQuotes): Decimal {
  let cost = amountUsd.mul(CONVERT_FEE_BPS).div(10_000);
  if (via === 'exchange') cost = cost.plus(market.network_fee_usd[to] ?? 0);
  const quote = market.swap_quotes?.find((q) => q.from === from && q.to === to);
  if (via === 'swap' && quote) {
    const marketPrice = rateOf(market.rates, from).div(rateOf(market.rates, to));
    const gap = amountUsd.mul(marketPrice.minus(quote.price)).div(marketPrice);
    if (gap.gt(0)) cost = cost.plus(gap);
  }
  return cost;
}

const tokenIndex = (t: TokenSymbol): number => TOKENS.indexOf(t);

function pickByConvertInto(convertInto: ConvertInto, from: TokenSymbol, viable: Candidate[]): Candidate {
  if (convertInto !== 'cheapest' && convertInto !== 'order') {
    const wanted = viable.find((c) => c.to === convertInto);
    if (wanted) return wanted;
  }
  if (convertInto === 'order') {
    const chain = TOKEN_DEFS[from].chain;
    const ordered = [...viable].sort((a, b) => tokenIndex(a.to) - tokenIndex(b.to));
    return ordered.find((c) => TOKEN_DEFS[c.to].stablecoin && TOKEN_DEFS[c.to].chain === chain)
      ?? ordered.find((c) => c.to === BALANCE_TOKEN)
      ?? [...viable].sort((a, b) => a.oldest.getTime() - b.oldest.getTime() || tokenIndex(a.to) - tokenIndex(b.to))[0];
  }
  // cheapest (also a specific coin that cannot be had): lowest cost, a swap before an exchange on a tie.
  return [...viable].sort((a, b) => a.cost.cmp(b.cost) || (a.via === b.via ? 0 : a.via === 'swap' ? -1 : 1) || tokenIndex(a.to) - tokenIndex(b.to))[0];
}
