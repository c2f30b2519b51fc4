// Pure figures of a merchant payout (spec 1 Payouts): the network fee of sending it, quoted at
// request in the balance's coin, `send_amount` = amount less fee, dollar values fixed at request.
import { decimalText, dec, formatUsd, parseUnits, unitsToDecimal, usdHalfUp, type Decimal } from '../../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../tokens/index.ts';
import { MIN_PAYOUT_USD, networkFeeUnits, usdRate } from '../planner.ts';
import { badRequest } from '../../platform/errors.ts';

export interface PayoutFigures {
  amount: bigint;
  network_fee: bigint;
  send_amount: bigint;
  amount_usd: Decimal;
  network_fee_usd: Decimal;
  send_amount_usd: Decimal;
  usd_rate: Decimal;
}

export const MIN_PAYOUT_MESSAGE = `the minimum payout is $${formatUsd(MIN_PAYOUT_USD)}`;
export const AMOUNT_NOT_POSITIVE = 'amount must be more than 0';
export const AMOUNT_INVALID = 'amount must be a number or a decimal string';
export const tooManyDecimals = (precision: number): string => `amount has more than ${precision} decimals`;

/** The network fee of sending `payoutToken`, in base units of the balance coin it is drawn from. */
export function payoutNetworkFee(fromToken: TokenSymbol, payoutToken: TokenSymbol, feeUsd: Decimal, fromRate: Decimal): bigint {
  void payoutToken; // priced by the payout coin's network (feeUsd), charged in the balance coin
  return networkFeeUnits(fromToken, feeUsd, fromRate);
}

/** Exact dollar value of units of a coin at `rate` (stablecoins: one token, one dollar). */
function exactUsdOf(token: TokenSymbol, units: bigint, rate: Decimal): Decimal {
  return unitsToDecimal(units, TOKEN_DEFS[token].decimals).mul(TOKEN_DEFS[token].stablecoin ? dec(1) : rate);
}

/** Dollar value of units of a coin at `rate`, to the cent. */
export function usdOf(token: TokenSymbol, units: bigint, rate: Decimal): Decimal {
  return usdHalfUp(exactUsdOf(token, units, rate));
}

/**
 * Below spec 8's minimum payout: the value before it is rounded to the cent, so $9.999999 is under
 * $10 as rule 6's automatic payout counts it (rounded, it would read $10.00 and pass).
 */
export function underMinimumPayout(token: TokenSymbol, units: bigint, rate: Decimal): boolean {
  return exactUsdOf(token, units, rate).lt(MIN_PAYOUT_USD);
}

export function payoutFigures(fromToken: TokenSymbol, amount: bigint, fee: bigint, rate: Decimal): PayoutFigures {
  const amount_usd = usdOf(fromToken, amount, rate);
  const network_fee_usd = usdOf(fromToken, fee, rate);
  return {
    amount, network_fee: fee, send_amount: amount - fee, amount_usd, network_fee_usd,
    send_amount_usd: amount_usd.minus(network_fee_usd), usd_rate: TOKEN_DEFS[fromToken].stablecoin ? dec(1) : usdRate(fromToken, amount_usd, amount),
  };
}

/**
 * A requested amount: a JSON number or decimal string, more than 0, at most the coin's precision
 * in decimals. Absent, null or 0 (-0 and 0.00 too) mean "all of it" (undefined).
 */
export function parsePayoutAmount(v: unknown, token: TokenSymbol): bigint | undefined {
  if (v === undefined || v === null || v === 0 || v === '0') return undefined;
  // the shape first, a sign allowed ('0.' and '-0.' are malformed alike, as a referral payout
  // reads them); then a negative zero is zero (all of it), any other negative is refused
  const text = decimalText(v);
  if (text === null) throw badRequest(AMOUNT_INVALID);
  if (/^-0+(\.0+)?$/.test(text)) return undefined;
  if (text.startsWith('-')) throw badRequest(AMOUNT_NOT_POSITIVE);
  const { decimals, precision } = TOKEN_DEFS[token];
  const units = parseUnits(text, precision);
  if (units === undefined) throw badRequest(tooManyDecimals(precision));
  if (units === 0n) return undefined;
  return units * 10n ** BigInt(decimals - precision);
}
