// The one Decimal configuration of the project: wide enough for 78-digit base units, and no
// rounding unless a call asks for it by name.
import { Decimal as DecimalJs } from 'decimal.js';

export const Decimal = DecimalJs.clone({ precision: 120, rounding: DecimalJs.ROUND_HALF_UP, toExpNeg: -100, toExpPos: 100 });
export type Decimal = InstanceType<typeof Decimal>;

export const ROUND_UP = DecimalJs.ROUND_UP;
export const ROUND_DOWN = DecimalJs.ROUND_DOWN;
export const ROUND_HALF_UP = DecimalJs.ROUND_HALF_UP;

export type DecimalInput = Decimal | string | number | bigint;

export function dec(v: DecimalInput): Decimal {
  return new Decimal(typeof v === 'bigint' ? v.toString() : v);
}

/**
 * `v` as a Decimal of this configuration: itself when it already is one (Decimals never change, so
 * sharing is safe), else dec(v). Hot paths use it to skip a copy; a Decimal of another decimal.js
 * configuration is still copied, so its arithmetic keeps using this one's precision.
 */
export function asDec(v: DecimalInput): Decimal {
  return typeof v === 'object' && v.constructor === Decimal ? v : dec(v);
}

/**
 * The text of an amount sent as a JSON number or a string: a finite number as the decimal it is
 * (String() writes 5e-7 or 1e+21, which a decimal pattern refuses), a string trimmed; null for
 * anything else. Every money field that takes "a number or a decimal string" reads it here.
 */
export function amountText(v: unknown): string | null {
  if (typeof v === 'number') return Number.isFinite(v) ? dec(v).toFixed() : null;
  return typeof v === 'string' ? v.trim() : null;
}

/** amountText when it is a plain decimal, a minus allowed (no exponent, no plus, no bare point); null otherwise. */
export function decimalText(v: unknown): string | null {
  const text = amountText(v);
  return text !== null && /^-?\d+(\.\d+)?$/.test(text) ? text : null;
}

/** Plain decimal notation without trailing zeros ("25.5", "3000", "0.00000001"). */
export function plain(d: Decimal): string {
  const s = d.toFixed();
  return s === '-0' ? '0' : s;
}

const UNSIGNED_DECIMAL = /^\d+(?:\.\d+)?$/;

/**
 * plain(dec(text)) without the Decimal: PostgreSQL gives numerics as digits with a point, so
 * dropping the leading zeros of the whole part and the trailing zeros of the fraction is all it
 * does. Anything else (sign, exponent, junk) takes the Decimal route.
 */
export function plainText(text: string): string {
  if (!UNSIGNED_DECIMAL.test(text)) return plain(dec(text));
  const point = text.indexOf('.');
  let end = text.length;
  if (point !== -1) {
    while (text.charCodeAt(end - 1) === 48) end--;
    if (end === point + 1) end = point;
  }
  const wholeEnd = point === -1 ? end : point;
  let start = 0;
  while (start < wholeEnd - 1 && text.charCodeAt(start) === 48) start++;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
