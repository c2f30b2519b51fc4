// Pure: what one committed outbox event means for the sockets. Every process runs this on every
// event (see fanout.ts), then emits only to the rooms it holds.
import type { StoredEvent } from '../events/index.ts';
import { AUDIT_EVENT } from '../audit/index.ts';
import {
  MERCHANT_UPDATE, PAYMENT_CREATED, PAYMENT_UPDATE, REVOKE_CODES, SESSIONS_REVOKED, SUSPENDED, WEBHOOK_DELIVERY,
} from './events.ts';
import { checkoutUpdate, dashboardUpdate, isPaymentJson, type NamesOf } from './payer-view.ts';
import { SUPPORT_MESSAGE, SUPPORT_MESSAGE_UPDATE, SUPPORT_READ } from '../support/index.ts';
import { NOTIFICATION_EVENT, NOTIFICATION_READ_EVENT, rolesOf } from '../notifications/index.ts';

export type Role = 'owner' | 'developer' | 'finance' | 'viewer';
const EVERYONE: readonly Role[] = ['owner', 'developer', 'finance', 'viewer'];
const OWNERS_DEVELOPERS: readonly Role[] = ['owner', 'developer'];
const OWNERS_FINANCE: readonly Role[] = ['owner', 'finance'];
const OWNERS: readonly Role[] = ['owner'];

/** Who receives each dashboard event (spec 6.3 "Who"); events not listed are not sent. */
export const AUDIENCE: Readonly<Record<string, readonly Role[]>> = {
  'payment:update': EVERYONE,
  'dashboard:update': EVERYONE,
  'balance:update': EVERYONE,
  'settlement:update': EVERYONE,
  'payout:update': EVERYONE,
  'payout_address:update': EVERYONE,
  'webhook:delivery': EVERYONE,
  'webhook:update': OWNERS_DEVELOPERS,
  'merchant:update': EVERYONE,
  'store:update': EVERYONE,
  'api_key:update': OWNERS_DEVELOPERS,
  'team:update': OWNERS,
  'link:update': EVERYONE,
  'customer:update': EVERYONE,
  [AUDIT_EVENT]: OWNERS,
  'support:message': EVERYONE,
  'support:message:update': EVERYONE,
  'support:read': EVERYONE,
  'support:typing': EVERYONE,
  'affiliate:referral': OWNERS_FINANCE,
  'affiliate:commission': OWNERS_FINANCE,
  'affiliate:balance': OWNERS_FINANCE,
  'affiliate:payout': OWNERS_FINANCE,
};

/** Webhook event families whose socket event is written next to them (settlement:update, payout:update). */
const WEBHOOK_ONLY: readonly string[] = ['settlement.', 'payout.'];

/** Support chat events the operator's sockets hear too, for every merchant (with its merchant_id). */
const OPERATOR_EVENTS: ReadonlySet<string> = new Set([SUPPORT_MESSAGE, SUPPORT_MESSAGE_UPDATE, SUPPORT_READ]);

export type Route =
  | { kind: 'checkout'; paymentId: string; event: string; payload: unknown }
  | { kind: 'merchant'; merchantId: string; roles: readonly Role[]; event: string; payload: unknown }
  | { kind: 'operator'; event: string; payload: unknown }
  | { kind: 'user'; userId: string; event: string; payload: unknown }
  | { kind: 'figures'; merchantId: string; livemode: boolean }
  | { kind: 'end_sessions'; sessionIds: string[]; code: string }
  | { kind: 'end_merchant'; merchantId: string; code: string };

function paymentRoutes(e: StoredEvent, namesOf?: NamesOf, checkoutBase: string | null = null): Route[] {
  if (!isPaymentJson(e.data)) return [];
  const paymentId = e.paymentId ?? e.data.id;
  const out: Route[] = [];
  // The checkout socket never hears of creation (spec 6.2 has no payment.created).
  if (e.type !== PAYMENT_CREATED) {
    const storeId = typeof e.data.store_id === 'string' ? e.data.store_id : null;
    const names = e.merchantId && namesOf ? namesOf(e.merchantId, storeId) : undefined;
    out.push({ kind: 'checkout', paymentId, event: PAYMENT_UPDATE, payload: checkoutUpdate(e.type, e.data, names) });
  }
  if (e.merchantId) {
    out.push({ kind: 'merchant', merchantId: e.merchantId, roles: EVERYONE, event: PAYMENT_UPDATE, payload: dashboardUpdate(e.type, e.data, e.merchantId, checkoutBase) });
    out.push({ kind: 'figures', merchantId: e.merchantId, livemode: e.livemode });
  }
  return out;
}

/** The `auth:error` code of a session's end reason: `role_changed` and `removed` as such, any other `session_revoked`. */
export const revokeCode = (reason: unknown): string =>
  (REVOKE_CODES as readonly unknown[]).includes(reason) ? (reason as string) : REVOKE_CODES[0];

function controlRoutes(e: StoredEvent): Route[] {
  if (e.type === SESSIONS_REVOKED) {
    const d = e.data as { session_ids?: unknown; reason?: unknown };
    const ids = Array.isArray(d.session_ids) ? d.session_ids.filter((s): s is string => typeof s === 'string') : [];
    const code = revokeCode(d.reason);
    return ids.length > 0 ? [{ kind: 'end_sessions', sessionIds: ids, code }] : [];
  }
  if (e.type === MERCHANT_UPDATE && e.merchantId && (e.data as { status?: unknown }).status === SUSPENDED) {
    return [{ kind: 'end_merchant', merchantId: e.merchantId, code: SUSPENDED }];
  }
  return [];
}

/**
 * The socket deliveries and session endings one outbox event asks for (spec 6.2, 6.3, 5).
 * `namesOf` gives the merchant and store names the checkout socket's payer view carries;
 * `checkoutBase` the checkout page's base URL the dashboard's payments link to (null: none served).
 */
export function routeEvent(e: StoredEvent, namesOf?: NamesOf, checkoutBase: string | null = null): Route[] {
  if (e.type.startsWith('payment.')) return paymentRoutes(e, namesOf, checkoutBase);
  return [...dashboardRoutes(e), ...controlRoutes(e)];
}

function dashboardRoutes(e: StoredEvent): Route[] {
  if (!e.merchantId) return [];
  const merchantId = e.merchantId;
  // `settlement.*` and `payout.*` are webhooks only: their writers append `settlement:update` and
  // `payout:update` in the same transaction on every change, which is what the socket hears (once).
  if (WEBHOOK_ONLY.some((prefix) => e.type.startsWith(prefix))) return [];
  // Notifications go by category (the notifications room says who sees which); read marks go to
  // the reader's own sockets only, without the user id that addressed them.
  if (e.type === NOTIFICATION_EVENT) {
    return [{ kind: 'merchant', merchantId, roles: rolesOf((e.data as { category?: unknown }).category), event: e.type, payload: e.data }];
  }
  if (e.type === NOTIFICATION_READ_EVENT) {
    const { user_id: userId, ...payload } = e.data as { user_id?: unknown };
    return typeof userId === 'string' ? [{ kind: 'user', userId, event: e.type, payload }] : [];
  }
  const roles = AUDIENCE[e.type];
  const out: Route[] = roles ? [{ kind: 'merchant', merchantId, roles, event: e.type, payload: e.data }] : [];
  if (OPERATOR_EVENTS.has(e.type)) out.push({ kind: 'operator', event: e.type, payload: { merchant_id: merchantId, ...(e.data as object) } });
  if (e.type === WEBHOOK_DELIVERY && movesFailedCount(e.data)) out.push({ kind: 'figures', merchantId, livemode: e.livemode });
  return out;
}

/**
 * Whether a `webhook:delivery` may change the dashboard figures' `failed_webhooks` (spec part 2
 * "Dashboard figures": deliveries that gave up): the delivery gave up, was resolved (it was failed),
 * or was redelivered (attempts back to 0, from whatever status). Without this, `dashboard:update`
 * followed payment events only and the overview kept showing a count that had changed.
 */
function movesFailedCount(data: unknown): boolean {
  const d = data as { status?: unknown; attempts?: unknown } | null;
  return d !== null && typeof d === 'object' && (d.status === 'failed' || d.status === 'resolved' || d.attempts === 0);
}
