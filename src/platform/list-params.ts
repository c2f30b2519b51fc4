// The list rules of spec 4.4: every list answers the limit and offset it applied; a limit out of
// range is replaced by the default, and a negative offset by 0.
export interface ListParams {
  limit: number;
  offset: number;
}

export interface ListRule {
  max: number;
  dflt: number;
}

export const LIST_DEFAULT: ListRule = { max: 200, dflt: 50 };
export const LIST_AUDIT: ListRule = { max: 500, dflt: 100 };
export const LIST_LEDGER: ListRule = { max: 500, dflt: 50 };
export const LIST_EVENTS: ListRule = { max: 200, dflt: 100 };
/** The operator's payout and settlement lists: the newest 200 unless paged (as before paging). */
export const LIST_OPERATOR: ListRule = { max: 200, dflt: 200 };
/** Offsets past any real list are clamped here, so the database never sees one beyond its integer range. */
export const MAX_OFFSET = 2 ** 31 - 1;

function toInt(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
  return null;
}

export function listParams(query: { limit?: unknown; offset?: unknown } | undefined, rule: ListRule = LIST_DEFAULT): ListParams {
  const l = toInt(query?.limit);
  const o = toInt(query?.offset);
  return {
    limit: l !== null && l >= 1 && l <= rule.max ? l : rule.dflt,
    offset: o !== null && o >= 0 ? Math.min(o, MAX_OFFSET) : 0,
  };
}
