// How values are written on the pages: dollars as the API gives them (never through a float),
// times in the reader's locale with UTC in the tooltip, statuses in words.
/** Two decimals at least, added as text: the API writes `"12.5"`, `"3000"` (no trailing zeros). */
export const cents = (v: string): string => {
  const dot = v.indexOf('.');
  return dot < 0 ? `${v}.00` : v.padEnd(dot + 3, '0');
};
/**
 * A dollar string with two decimals at least (a figure given to more than the cent kept whole),
 * its sign before the dollar sign (`-$0.31`).
 */
export const usd = (v: unknown): string => (typeof v === 'string' && v !== '' ? (v.startsWith('-') ? `-$${cents(v.slice(1))}` : `$${cents(v)}`) : '—');

export function when(iso: unknown): string {
  if (typeof iso !== 'string' || !iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const words = (s: unknown): string => (typeof s === 'string' ? s.replace(/_/g, ' ') : '');

export const short = (s: unknown, n = 14): string => {
  const t = typeof s === 'string' ? s : '';
  return t.length > n ? `${t.slice(0, n - 4)}…${t.slice(-3)}` : t;
};
