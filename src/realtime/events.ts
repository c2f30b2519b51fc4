// The socket vocabulary of spec 4.3, 4.5, 5 ("Socket authentication") and 6.2/6.3, once.
// Outbox event types written by other rooms that only the sockets read are named here too, with
// the same strings those rooms write (accounts: src/accounts/socket-events.ts).
import { SOCKET_EVENTS } from '../payments/payment-events.ts';

export const CHECKOUT_NAMESPACE = '/';
export const MERCHANT_NAMESPACE = '/merchant';
export const SOCKET_PATH = '/socket.io';
/** Spec 8: a gap under 2 minutes replays missed events. */
export const RECOVERY_WINDOW_MS = 2 * 60 * 1000;
/** Spec 6.3 and 8: at most one dashboard figure push per 2 seconds per mode. */
export const FIGURES_INTERVAL_MS = 2000;

// Client-emitted events.
export const SUBSCRIBE = 'subscribe';
export const UNSUBSCRIBE = 'unsubscribe';
export const AUTH_REFRESH = 'auth:refresh';

// Server-emitted events.
export const PAYMENT_UPDATE = 'payment:update';
export const SESSION = 'session';
export const AUTH_ERROR = 'auth:error';
export const DASHBOARD_UPDATE = 'dashboard:update';

// Acknowledgement texts (spec 4.3, CONTRACT.md "Delivery and real time").
export { PAYMENT_NOT_FOUND } from '../payments/service.ts';
export const CHECKOUT_TOKEN_REQUIRED = 'checkout token required';

// Handshake refusal (spec 5): connect_error message and err.data.code.
export const UNAUTHORIZED = 'unauthorized';
export const MISSING_TOKEN = 'missing_token';
export const INVALID_TOKEN = 'invalid_token';
export const WRONG_KIND = 'wrong_kind';
/** The operator's socket only: its address is over the operator API's limit on wrong admin tokens. */
export const RATE_LIMITED = 'rate_limited';

// auth:error codes (spec 5).
export const TOKEN_EXPIRED = 'token_expired';
export const SESSION_REVOKED = 'session_revoked';
export const ROLE_CHANGED = 'role_changed';
export const REMOVED = 'removed';
export const SUSPENDED = 'suspended';
export const REVOKE_CODES = [SESSION_REVOKED, ROLE_CHANGED, REMOVED] as const;

// Checkout-only event types (spec 6.2) and the dashboard-only creation event (spec 6.3).
export const PAYMENT_SNAPSHOT = 'payment.snapshot';
/** The outbox type of a new payment (written by the payments room). */
export const PAYMENT_CREATED = SOCKET_EVENTS.created;

// Outbox event types read here. `session:revoked` and `merchant:update` are written by accounts.
export { SESSIONS_REVOKED, MERCHANT_UPDATE } from '../accounts/socket-events.ts';
/** The dashboard's settlement and payout events, written next to every change (the `settlement.*` and `payout.*` webhooks are not sent to sockets). */
export const SETTLEMENT_UPDATE = 'settlement:update';
export const PAYOUT_UPDATE = 'payout:update';
/** A delivery's change, announced by the webhooks room (its DELIVERY_EVENT). */
export const WEBHOOK_DELIVERY = 'webhook:delivery';
