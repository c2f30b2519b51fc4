// Amounts as the API gives them: decimal strings, never floats. Coin amounts are compared and
// subtracted in base units (bigint); dollar amounts in cents. Pure.

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A decimal string in base units of `decimals`; null when it is not one or has more decimals. */
export function toUnits(amount: string, decimals: number): bigint | null {
  const m = DECIMAL.exec(amount.trim());
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.length > decimals && /[1-9]/.test(frac.slice(decimals))) return null;
  return BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt((frac.slice(0, decimals) || '0').padEnd(decimals, '0'));
}

/** Base units as the shortest decimal string (`1.5`, `0.000001`, `3`). */
export function fromUnits(units: bigint, decimals: number): string {
  const neg = units < 0n;
  const s = (neg ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** a − b of two coin amounts of `decimals`, never below zero; null when either is not an amount. */
export function remaining(a: string, b: string, decimals: number): string | null {
  const x = toUnits(a, decimals);
  const y = toUnits(b, decimals);
  if (x === null || y === null) return null;
  return fromUnits(x > y ? x - y : 0n, decimals);
}

export const isPositive = (amount: string | undefined): boolean => !!amount && /[1-9]/.test(amount);

/** Dollars (`25`, `25.5`, `25.50`) in cents; null when not a dollar amount with at most 2 decimals. */
export const cents = (usd: string | undefined): bigint | null => (usd === undefined ? null : toUnits(usd, 2));

/** Cents as a 2-decimal dollar string (`-0.20` when negative). */
export function dollars(c: bigint): string {
  const neg = c < 0n;
  const s = (neg ? -c : c).toString().padStart(3, '0');
  return `${neg ? '-' : ''}${s.slice(0, -2)}.${s.slice(-2)}`;
}
