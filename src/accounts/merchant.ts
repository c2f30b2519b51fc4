// The Merchant object of spec part 2, and the settings a payment captures at creation.
import { TOKENS, type TokenSymbol } from '../tokens/index.ts';
import type { MerchantRow } from './schema.ts';

export const SETTLEMENT_MODES = ['direct', 'custodial', 'scheduled'] as const;
export type SettlementMode = (typeof SETTLEMENT_MODES)[number];
export const PAYOUT_SCHEDULES = ['instant', 'daily', 'weekly'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];

export const DEFAULT_FEE_BPS = 100;
export const SUSPENDED = 'merchant account is suspended';

export type Merchant = MerchantRow;

/** The coins a merchant accepts: every token (also tokens added later) unless a list was chosen. */
export function enabledTokensOf(m: Pick<Merchant, 'enabledTokens'>): TokenSymbol[] {
  if (m.enabledTokens === null) return [...TOKENS];
  return TOKENS.filter((t) => m.enabledTokens!.includes(t));
}

export const iso = (d: Date | null | undefined): string | undefined => (d ? d.toISOString() : undefined);

export function merchantJson(m: Merchant): Record<string, unknown> {
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    fee_bps: m.feeBps,
    live_enabled: m.liveEnabled,
    underpaid_tolerance_bps: m.underpaidToleranceBps,
    accept_other_assets: m.acceptOtherAssets,
    settlement: m.settlement,
    payout_schedule: m.payoutSchedule,
    ...(m.payoutScheduledAt ? { payout_scheduled_at: iso(m.payoutScheduledAt) } : {}),
    fees_paid_by_customer: m.feesPaidByCustomer,
    convert_into: m.convertInto,
    hide_below_minimum: m.hideBelowMinimum,
    enabled_tokens: enabledTokensOf(m),
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
  };
}

/** The settings a payment keeps for its whole life (spec 1 Payment behaviour 7). */
export interface CapturedSettings {
  fee_bps: number;
  underpaid_tolerance_bps: number;
  accept_other_assets: boolean;
  settlement: SettlementMode;
  payout_schedule: PayoutSchedule;
  fees_paid_by_customer: boolean;
  convert_into: string;
  hide_below_minimum: boolean;
  enabled_tokens: TokenSymbol[];
}

export function captureSettings(m: Merchant): CapturedSettings {
  return {
    fee_bps: m.feeBps,
    underpaid_tolerance_bps: m.underpaidToleranceBps,
    accept_other_assets: m.acceptOtherAssets,
    settlement: m.settlement as SettlementMode,
    payout_schedule: m.payoutSchedule as PayoutSchedule,
    fees_paid_by_customer: m.feesPaidByCustomer,
    convert_into: m.convertInto,
    hide_below_minimum: m.hideBelowMinimum,
    enabled_tokens: enabledTokensOf(m),
  };
}
