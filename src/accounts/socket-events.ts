// Dashboard socket events of spec 6.3 written to the outbox in the caller's transaction (types with
// a colon are socket-only: the realtime room fans them out, webhooks never see them).
import type { Executor } from '../platform/db/index.ts';
import { appendEvent } from '../events/index.ts';
import { merchantJson, type Merchant } from './merchant.ts';
import { apiKeyJson } from './api-keys.ts';
import { storeJson } from './stores.ts';
import { userJson } from './users.ts';
import type { ApiKeyRow, InvitationRow, StoreRow, UserRow } from './schema.ts';
import { invitationJson } from './invitation-json.ts';

export const MERCHANT_UPDATE = 'merchant:update';
export const STORE_UPDATE = 'store:update';
export const API_KEY_UPDATE = 'api_key:update';
export const TEAM_UPDATE = 'team:update';
/** Not a spec event: tells the realtime room to end the dashboard sockets of these sessions (spec 5.5). */
export const SESSIONS_REVOKED = 'session:revoked';

/** `added` also for a member who accepted an invitation (then with the invitation). */
export type TeamAction = 'added' | 'role_changed' | 'removed' | 'invited' | 'invitation_revoked';
/** The socket `auth:error` code a revocation maps to (spec 5 "Socket authentication"). */
export type RevokeReason = 'session_revoked' | 'role_changed' | 'removed';

export const emitMerchantUpdate = (tx: Executor, m: Merchant, at: Date) =>
  appendEvent(tx, { type: MERCHANT_UPDATE, livemode: false, merchantId: m.id, data: merchantJson(m), at });

export const emitStoreUpdate = (tx: Executor, s: StoreRow, at: Date) =>
  appendEvent(tx, { type: STORE_UPDATE, livemode: false, merchantId: s.merchantId, data: storeJson(s), at });

/** The key object only: the secret is never part of an event. */
export const emitApiKeyUpdate = (tx: Executor, k: ApiKeyRow, at: Date) =>
  appendEvent(tx, { type: API_KEY_UPDATE, livemode: k.livemode, merchantId: k.merchantId, data: apiKeyJson(k), at });

export const emitTeamUpdate = (tx: Executor, action: TeamAction, u: UserRow, at: Date) =>
  emitTeamChange(tx, u.merchantId, action, { user: u }, at);

/** `team:update` `{action, user, invitation}` (each null when the change has none). */
export const emitTeamChange = (tx: Executor, merchantId: string, action: TeamAction, of: { user?: UserRow; invitation?: InvitationRow }, at: Date) =>
  appendEvent(tx, {
    type: TEAM_UPDATE, livemode: false, merchantId,
    data: { action, user: of.user ? userJson(of.user) : null, invitation: of.invitation ? invitationJson(of.invitation, at) : null }, at,
  });

export async function emitSessionsRevoked(tx: Executor, merchantId: string, userId: string, sessionIds: string[], reason: RevokeReason, at: Date): Promise<void> {
  if (sessionIds.length === 0) return;
  await appendEvent(tx, { type: SESSIONS_REVOKED, livemode: false, merchantId, data: { user_id: userId, session_ids: sessionIds, reason }, at });
}
