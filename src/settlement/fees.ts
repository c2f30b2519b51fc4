// Fees of one settlement in the coin that arrived, and its dollar figures (CONTRACT.md
// "Conventions"): coin fees rounded up at the coin's precision; dollars to the cent half-up,
// the remainder going to net_usd so the figures add up exactly.
import { dec, quotientUnitsRoundedUp, rateHalfUp, roundUnitsUp, unitsRoundedUp, unitsToDecimal, usdHalfUp, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';

// The service fee is never less than MIN_SERVICE_FEE_USD dollars' worth of the coin: one figure for
// the price the payment quotes and the fee the settlement takes.
import { MIN_SERVICE_FEE_USD } from '../payments/service-fee.ts';
export { MIN_SERVICE_FEE_USD };
const BPS = 10_000n;

/** `max(amount × fee_bps / 10000, 0.20 / rate)` rounded up at the coin's precision, in base units. */
export function serviceFeeUnits(token: TokenSymbol, amount: bigint, feeBps: number, rate: Decimal): bigint {
  const { decimals, precision } = TOKEN_DEFS[token];
  const share = unitsToDecimal(amount, decimals).mul(feeBps).div(10_000);
  const floor = MIN_SERVICE_FEE_USD.div(rate);
  return unitsRoundedUp(share.gt(floor) ? share : floor, precision, decimals);
}

/** The network fee's dollars in the coin, rounded up at the coin's precision. */
export function networkFeeUnits(token: TokenSymbol, networkFeeUsd: Decimal, rate: Decimal): bigint {
  const { decimals, precision } = TOKEN_DEFS[token];
  return quotientUnitsRoundedUp(networkFeeUsd, rate, precision, decimals);
}

/** `bps` of what is converted, rounded up to a base unit and then to the coin's precision. */
export function conversionFeeUnits(token: TokenSymbol, converted: bigint, bps: number): bigint {
  if (converted <= 0n || bps === 0) return 0n;
  const { decimals, precision } = TOKEN_DEFS[token];
  const exact = converted * BigInt(bps);
  return roundUnitsUp(exact / BPS + (exact % BPS === 0n ? 0n : 1n), precision, decimals);
}

/** `usd_value / amount` half-up at 8 decimals; exactly 1 for USDT and USDC. */
export function usdRate(token: TokenSymbol, usdValue: Decimal, amount: bigint): Decimal {
  if (TOKEN_DEFS[token].stablecoin) return dec(1);
  if (amount === 0n) return dec(0);
  return rateHalfUp(usdValue.div(unitsToDecimal(amount, TOKEN_DEFS[token].decimals)));
}

export interface CoinSplit { amount: bigint; service_fee: bigint; network_fee: bigint; conversion_fee: bigint; net: bigint }
export interface UsdSplit { usd_value: Decimal; service_fee_usd: Decimal; network_fee_usd: Decimal; conversion_fee_usd: Decimal; net_usd: Decimal }

/**
 * Dollar figures of a coin split: each fee is its share of `usd_value`, half-up to the cent;
 * net_usd takes the remainder. A remainder that would make net_usd negative (a tiny net), or
 * leave dollars on a net of zero units, is settled against the fees instead, so every figure
 * stays ≥ 0 and they add up exactly.
 */
export function splitUsd(usdValueExact: Decimal, split: CoinSplit): UsdSplit {
  const usd_value = usdHalfUp(usdValueExact);
  const share = (units: bigint): Decimal => (split.amount === 0n ? dec(0) : usdHalfUp(usd_value.mul(dec(units)).div(dec(split.amount))));
  const fees = [share(split.conversion_fee), share(split.network_fee), share(split.service_fee)];
  let net = usd_value.minus(fees[0]).minus(fees[1]).minus(fees[2]);
  if (split.net === 0n && net.gt(0)) {
    // nothing reaches the merchant: the remainder belongs to the last fee that took something
    const i = fees.findIndex((f, k) => [split.conversion_fee, split.network_fee, split.service_fee][k] > 0n);
    fees[i === -1 ? 2 : i] = fees[i === -1 ? 2 : i].plus(net);
    net = dec(0);
  }
  for (let i = 0; net.lt(0) && i < fees.length; i++) {
    const take = fees[i].lt(net.neg()) ? fees[i] : net.neg();
    fees[i] = fees[i].minus(take);
    net = net.plus(take);
  }
  return { usd_value, conversion_fee_usd: fees[0], network_fee_usd: fees[1], service_fee_usd: fees[2], net_usd: net };
}
