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
  const rest = abs % scale;
  if (rest === 0n) return `${negative ? '-' : ''}${whole}`;
  // The fraction's digits without its trailing zeros (no regular expression: amounts are formatted several times per payment).
  const digits = rest.toString().padStart(decimals, '0');
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  return `${negative ? '-' : ''}${whole}.${digits.slice(0, end)}`;
}

export function unitsToDecimal(units: bigint, decimals: number): Decimal {
  return dec(units).div(dec(10n ** BigInt(decimals)));
}

/**
 * A decimal quantity of coin rounded UP at `places` decimals (the coin's display precision), as
 * base units of a coin with `decimals`. Rounding up means the merchant never receives less.
 */
export function unitsRoundedUp(amount: DecimalInput, places: number, decimals: number): bigint {
  checkPrecision(places, decimals);
  // At most `places` decimals after rounding, so its fixed notation at `places` is exact: the digits
  // without the point are the amount in units of 10^-places, scaled up to the coin's base units.
  const fixed = asDec(amount).toDecimalPlaces(places, ROUND_UP).toFixed(places);
  return stepsToUnits(BigInt(places === 0 ? fixed : fixed.replace('.', '')), places, decimals);
}

function checkPrecision(places: number, decimals: number): void {
  if (places > decimals) throw new Error(`precision ${places} exceeds the coin's ${decimals} decimals`);
}

/** A count of 10^-places steps as base units of a coin with `decimals`. */
function stepsToUnits(steps: bigint, places: number, decimals: number): bigint {
  return places === decimals ? steps : steps * 10n ** BigInt(decimals - places);
}

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

interface Scaled { n: bigint; scale: number }
/**
 * Divisors already read: a rate is one Decimal shared by every payment priced until the market
 * moves (Decimals never change, so what was read of one stays true).
 */
const scaledDivisors = new WeakMap<Decimal, Scaled>();

/** A Decimal as an integer and a power of ten: `{ n, scale }` with value n / 10^scale, exactly. */
function scaledInteger(d: Decimal): Scaled {
  const m = PLAIN_DECIMAL.exec(d.toFixed());
  if (!m) throw new Error(`not a finite decimal: ${d.toString()}`);
  const frac = m[3] ?? '';
  const n = BigInt(m[2] + frac);
  return { n: m[1] === '-' ? -n : n, scale: frac.length };
}

/**
 * `dividend / divisor` rounded UP (away from zero) at `places` decimals, as base units of a coin
 * with `decimals`: what unitsRoundedUp(dividend.div(divisor), …) means, computed exactly in
 * integers. A Decimal division first rounds the quotient to 120 digits, which could land it on a
 * multiple of the step and lose the round-up; the integer quotient never does, and costs less than
 * the 120-digit division that creation pays per payment.
 */
export function quotientUnitsRoundedUp(dividend: Decimal, divisor: Decimal, places: number, decimals: number): bigint {
  checkPrecision(places, decimals);
  const a = scaledInteger(dividend);
  let b = scaledDivisors.get(divisor);
  if (b === undefined) {
    b = scaledInteger(divisor);
    scaledDivisors.set(divisor, b);
  }
  if (b.n === 0n) throw new Error('division by zero');
  // a.n/10^a.scale ÷ b.n/10^b.scale × 10^places = (a.n × 10^(b.scale+places)) / (b.n × 10^a.scale)
  let num = a.n * 10n ** BigInt(b.scale + places);
  let den = b.n * 10n ** BigInt(a.scale);
  if (den < 0n) { num = -num; den = -den; }
  const whole = num / den;
  const steps = num % den === 0n ? whole : num > 0n ? whole + 1n : whole - 1n;
  return stepsToUnits(steps, places, decimals);
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
