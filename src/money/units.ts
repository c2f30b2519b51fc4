// Coin amounts: bigint base units in code and storage, decimal strings at the edge.
import { asDec, dec, plain, ROUND_UP, type Decimal, type DecimalInput } from './decimal.ts';

const DECIMAL_STRING = /^(\d+)(?:\.(\d+))?$/;

/** Exact conversion of a decimal string to base units; undefined when it has more decimals than the coin. */
export function parseUnits(value: string, decimals: number): bigint | undefined {
  const m = DECIMAL_STRING.exec(value.trim());
  if (!m) return undefined;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) return undefined;
  return BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt((frac.padEnd(decimals, '0')) || '0');
}

/** Base units as a decimal string without trailing zeros. */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const frac = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export function unitsToDecimal(units: bigint, decimals: number): Decimal {
  return dec(units).div(dec(10n ** BigInt(decimals)));
}

/**
 * A decimal quantity of coin rounded UP at `places` decimals (the coin's display precision), as
 * base units of a coin with `decimals`. Rounding up means the merchant never receives less.
 */
export function unitsRoundedUp(amount: DecimalInput, places: number, decimals: number): bigint {
  if (places > decimals) throw new Error(`precision ${places} exceeds the coin's ${decimals} decimals`);
  // At most `places` decimals after rounding, so its fixed notation at `places` is exact: the digits
  // without the point are the amount in units of 10^-places, scaled up to the coin's base units.
  const fixed = asDec(amount).toDecimalPlaces(places, ROUND_UP).toFixed(places);
  const units = BigInt(places === 0 ? fixed : fixed.replace('.', ''));
  return places === decimals ? units : units * 10n ** BigInt(decimals - places);
}

/** Base units rounded UP to a multiple of 10^(decimals-places): a fee or amount at the coin's precision. */
export function roundUnitsUp(units: bigint, places: number, decimals: number): bigint {
  const step = 10n ** BigInt(decimals - places);
  const rem = ((units % step) + step) % step;
  return rem === 0n ? units : units + (step - rem);
}

/**
 * The same quantity of a coin in base units of another number of decimals (USDT with 6 decimals on
 * Tron and Ethereum, 18 on BNB Smart Chain), rounded DOWN where the target has fewer decimals.
 */
export function rescaleUnitsDown(units: bigint, fromDecimals: number, toDecimals: number): bigint {
  return toDecimals >= fromDecimals ? units * 10n ** BigInt(toDecimals - fromDecimals) : units / 10n ** BigInt(fromDecimals - toDecimals);
}

export function formatDecimal(d: Decimal): string {
  return plain(d);
}
