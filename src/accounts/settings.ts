// Applying settings and the live-mode switch (spec 4.4 Settings; owner): one transaction with the
// audit entry (before/after of the changed fields) and the `merchant:update` socket event.
import { eq } from 'drizzle-orm';
import { badRequest, notFound } from '../platform/errors.ts';
import type { Database, Tx } from '../platform/db/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { merchants } from './schema.ts';
import { merchantJson, type Merchant } from './merchant.ts';
import { parseSettingsPatch, type SettingsChange } from './settings-patch.ts';
import { emitMerchantUpdate } from './socket-events.ts';
import { noticeLiveMode } from './notices.ts';

export const ENABLED_REQUIRED = 'enabled (true or false) is required';

/** The merchant JSON fields a change touched, from a whole merchant JSON. */
function pick(json: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, json[f]]));
}

const SNAKE: Record<keyof SettingsChange, string> = {
  underpaidToleranceBps: 'underpaid_tolerance_bps', acceptOtherAssets: 'accept_other_assets', settlement: 'settlement',
  payoutSchedule: 'payout_schedule', feesPaidByCustomer: 'fees_paid_by_customer', convertInto: 'convert_into',
  hideBelowMinimum: 'hide_below_minimum', enabledTokens: 'enabled_tokens',
};

/**
 * Updates merchant columns under a row lock and records `action` with before/after of `fields`.
 * Used by settings, live mode and the operator API.
 */
export async function updateMerchant(
  tx: Tx, merchantId: string, set: Partial<Merchant>, audit: { action: string; actor: Actor; fields: string[] }, now: Date,
): Promise<Merchant> {
  const [before] = await tx.select().from(merchants).where(eq(merchants.id, merchantId)).for('update');
  if (!before) throw notFound();
  const [after] = await tx.update(merchants).set({ ...set, updatedAt: now }).where(eq(merchants.id, merchantId)).returning();
  await recordAudit(tx, {
    merchantId, action: audit.action, actor: audit.actor, subject: merchantId,
    before: pick(merchantJson(before), audit.fields), after: pick(merchantJson(after), audit.fields), at: now,
  });
  await emitMerchantUpdate(tx, after, now);
  return after;
}

export async function updateSettings(db: Database, merchantId: string, body: Record<string, unknown>, actor: Actor, now: Date): Promise<Merchant> {
  const change = parseSettingsPatch(body);
  const fields = (Object.keys(change) as (keyof SettingsChange)[]).map((k) => SNAKE[k]);
  return db.transaction((tx) => updateMerchant(tx, merchantId, change, { action: 'settings.updated', actor, fields }, now));
}

export async function setLiveMode(db: Database, merchantId: string, body: Record<string, unknown>, actor: Actor, now: Date): Promise<Merchant> {
  if (typeof body.enabled !== 'boolean') throw badRequest(ENABLED_REQUIRED);
  const enabled = body.enabled;
  return db.transaction(async (tx) => {
    // Under the row's lock, so of two toggles racing only the one that changes it tells the team.
    const [before] = await tx.select({ liveEnabled: merchants.liveEnabled }).from(merchants).where(eq(merchants.id, merchantId)).for('update');
    const after = await updateMerchant(tx, merchantId, { liveEnabled: enabled }, { action: 'live_mode.updated', actor, fields: ['live_enabled'] }, now);
    if (before && before.liveEnabled !== enabled) await noticeLiveMode(tx, merchantId, enabled, actor.email, now);
    return after;
  });
}
