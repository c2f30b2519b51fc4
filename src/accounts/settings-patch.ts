// Pure: reading a PATCH /merchant/settings body (spec 4.4 Settings, 7). Only fields that are sent
// are checked and changed; fields of other names are ignored. Checked in the spec's field order.
import { badRequest, NOTHING_TO_UPDATE } from '../platform/errors.ts';
import { isToken, TOKENS, unsupportedToken, type TokenSymbol } from '../tokens/index.ts';
import { PAYOUT_SCHEDULES, SETTLEMENT_MODES, type PayoutSchedule, type SettlementMode } from './merchant.ts';

export { NOTHING_TO_UPDATE } from '../platform/errors.ts';
export const TOLERANCE_RANGE = 'underpaid_tolerance_bps must be between 0 and 2000';
export const SETTLEMENT_INVALID = 'settlement must be "custodial", "direct" or "scheduled"';
export const PAYOUT_SCHEDULE_INVALID = 'payout_schedule must be "instant", "daily" or "weekly"';
export const CONVERT_INTO_INVALID = 'convert_into must be "cheapest", "order" or a supported token';
export const ENABLED_TOKENS_EMPTY = 'enabled_tokens must enable at least one token';
export const ENABLED_TOKENS_LIST = 'enabled_tokens must be a list of tokens, or null for every token';
export { unsupportedToken } from '../tokens/index.ts';
export const mustBeBoolean = (field: string) => `${field} must be true or false`;

export const MAX_TOLERANCE_BPS = 2000;

/** The merchant columns a settings PATCH may change. `enabledTokens: null` means every token, also later ones. */
export interface SettingsChange {
  underpaidToleranceBps?: number;
  acceptOtherAssets?: boolean;
  settlement?: SettlementMode;
  payoutSchedule?: PayoutSchedule;
  feesPaidByCustomer?: boolean;
  convertInto?: string;
  hideBelowMinimum?: boolean;
  enabledTokens?: TokenSymbol[] | null;
}

function bool(body: Record<string, unknown>, field: string): boolean {
  const v = body[field];
  if (typeof v !== 'boolean') throw badRequest(mustBeBoolean(field));
  return v;
}

function enabledTokens(v: unknown): TokenSymbol[] | null {
  if (v === null) return null;
  if (!Array.isArray(v)) throw badRequest(ENABLED_TOKENS_LIST);
  if (v.length === 0) throw badRequest(ENABLED_TOKENS_EMPTY);
  const chosen = new Set<TokenSymbol>();
  for (const t of v) {
    if (typeof t !== 'string' || !isToken(t)) throw badRequest(unsupportedToken(typeof t === 'string' ? t : JSON.stringify(t)));
    chosen.add(t);
  }
  // stored in catalog order, so equal choices compare equal
  return TOKENS.filter((t) => chosen.has(t));
}

export function parseSettingsPatch(body: Record<string, unknown>): SettingsChange {
  const has = (f: string) => Object.hasOwn(body, f);
  const c: SettingsChange = {};
  if (has('underpaid_tolerance_bps')) {
    const v = body.underpaid_tolerance_bps;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_TOLERANCE_BPS) throw badRequest(TOLERANCE_RANGE);
    c.underpaidToleranceBps = v;
  }
  if (has('accept_other_assets')) c.acceptOtherAssets = bool(body, 'accept_other_assets');
  if (has('settlement')) {
    if (!(SETTLEMENT_MODES as readonly unknown[]).includes(body.settlement)) throw badRequest(SETTLEMENT_INVALID);
    c.settlement = body.settlement as SettlementMode;
  }
  if (has('payout_schedule')) {
    if (!(PAYOUT_SCHEDULES as readonly unknown[]).includes(body.payout_schedule)) throw badRequest(PAYOUT_SCHEDULE_INVALID);
    c.payoutSchedule = body.payout_schedule as PayoutSchedule;
  }
  if (has('fees_paid_by_customer')) c.feesPaidByCustomer = bool(body, 'fees_paid_by_customer');
  if (has('convert_into')) {
    const v = body.convert_into;
    if (v !== 'cheapest' && v !== 'order' && !(typeof v === 'string' && isToken(v))) throw badRequest(CONVERT_INTO_INVALID);
    c.convertInto = v as string;
  }
  if (has('hide_below_minimum')) c.hideBelowMinimum = bool(body, 'hide_below_minimum');
  if (has('enabled_tokens')) c.enabledTokens = enabledTokens(body.enabled_tokens);
  if (Object.keys(c).length === 0) throw badRequest(NOTHING_TO_UPDATE);
  return c;
}
