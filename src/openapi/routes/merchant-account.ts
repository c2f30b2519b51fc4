// Dashboard routes of the account (spec 4.4 Session, Team, API keys, Stores, Settings, Audit;
// CONTRACT Notifications, Support chat, Invitations). Roles come from the routes themselves.
import type { RouteDoc } from '../describe.ts';
import { arr, bool, int, listLimit, message, nullable, obj, oneOf, page, ref, str, time, wrap } from '../schema.ts';
import { LIST_AUDIT, LIST_DEFAULT } from '../../platform/list-params.ts';
import {
  ACCESS_INVALID, CREDENTIALS_REQUIRED, EMAIL_TAKEN, ENABLED_REQUIRED, ENABLED_TOKENS_EMPTY, INSUFFICIENT_PERMISSIONS,
  INVALID_CREDENTIALS, INVALID_EMAIL, INVITATION_INVALID, LABEL_INVALID, LAST_OWNER, MERCHANT_NAME_REQUIRED, MERCHANT_NAME_TOO_LONG, NO_REFRESH_TOKEN,
  PASSWORDS_REQUIRED, PASSWORD_TOO_LONG, PASSWORD_TOO_SHORT, ROLE_MESSAGE, SETTLEMENT_INVALID, STORE_NAME_INVALID, STORE_NAME_MAX, TOLERANCE_RANGE,
  UNKNOWN_STORE, SUSPENDED, WRONG_CURRENT_PASSWORD,
} from '../../accounts/index.ts';
import { INVALID_TOKEN, MISSING_TOKEN } from '../../accounts/authenticate.ts';
import { CONVERT_INTO_INVALID, ENABLED_TOKENS_LIST, PAYOUT_SCHEDULE_INVALID, mustBeBoolean } from '../../accounts/settings-patch.ts';
import { ONLY_PENDING_REVOKED } from '../../accounts/invitations.ts';
import { dateMessage } from '../../audit/query.ts';
import { CATEGORY_MESSAGE } from '../../notifications/index.ts';
import { LIVEMODE_MESSAGE, READ_BODY_MESSAGE, UNREAD_MESSAGE } from '../../notifications/reads.ts';
import { unsupportedToken } from '../../tokens/catalog.ts';
import { NOTHING_TO_UPDATE, NOT_FOUND, RATE_LIMITED } from '../../platform/errors.ts';
import { BEFORE_INVALID, BODY_INVALID, MAX_BODY, MESSAGE_DELETED } from '../../support/index.ts';
import { CATEGORIES, rolesOf } from '../../notifications/index.ts';
import { PAYOUT_REQUESTED_MESSAGE, CATEGORIES_MESSAGE } from '../../mail/index.ts';

const MODE = { mode: oneOf(['test'], 'test for the test mode; anything else, or nothing, live') };
const ROLE = oneOf(['owner', 'developer', 'finance', 'viewer']);
const SIGNED_IN = obj({ access_token: str('JWT, valid 15 minutes'), expires_at: time(), role: ROLE }, ['access_token', 'expires_at', 'role']);
const INVITATION = obj({ id: str(), merchant_id: str(), email: str(), role: ROLE, status: str(), invited_by: str(), expires_at: time(), accepted_at: time(), created_at: time() }, ['id', 'email', 'role', 'status']);
const NOTIFICATION = obj({ id: str(), merchant_id: str(), livemode: bool(), category: str(), title: str(), body: str(), subject: str(), read_at: time(), created_at: time() }, ['id', 'category', 'title']);
/** The categories not every role sees, and whose they are (src/notifications/categories.ts): `affiliates: owner, finance; team: owner`. */
const ROLE_CATEGORIES = CATEGORIES.filter((c) => rolesOf(c).length < 4).map((c) => `${c}: ${rolesOf(c).join(', ')}`).join('; ');
const EMAIL_NOTIFICATIONS = wrap('email_notifications', obj({
  referral_payout_requested: bool('e-mail "Payout requested" of referral payouts (owners and finance; default true)'),
  categories: arr(oneOf([...CATEGORIES]), 'every live notification of these categories is e-mailed too (default none): only categories of my current role '
    + `(${ROLE_CATEGORIES}; the others every role), in the categories' order; one chosen under another role is kept but neither shown nor mailed, and comes back with that role`),
}, ['referral_payout_requested', 'categories']));
/** A team member (side merchant) or the service's support by name (src/support/schema.ts Author). */
const SUPPORT_AUTHOR = { anyOf: [obj({ id: str(), email: str(), role: oneOf(['owner', 'developer', 'finance', 'viewer']) }, ['id', 'email', 'role']), obj({ name: str() }, ['name'])] };
/** A message's text as written and as edited (src/support/messages.ts requireBody). */
/** Text of at most `max` characters counted as sent, stored trimmed (requireStoreName, support's requireBody). */
const trimmedText = (max: number) => str(`at most ${max} characters (code points) as sent, white space included; kept trimmed of white space at either end, which must leave at least one character`, { minLength: 1, maxLength: max });
const SUPPORT_BODY = obj({ body: trimmedText(MAX_BODY) }, ['body']);
/** A store's name, and a payment link's (src/accounts/stores.ts requireStoreName). */
export const STORE_NAME = trimmedText(STORE_NAME_MAX);
const SUPPORT_MESSAGE = obj({ id: str(), merchant_id: str(), side: oneOf(['merchant', 'support']), author: SUPPORT_AUTHOR, body: str(), created_at: time(), edited_at: time(), deleted_at: time() }, ['id', 'side', 'body', 'created_at']);

/** Sign-out takes the access token or, without one, the refresh cookie (README "Sign-out"). */
const SIGN_OUT_ERRORS = { 401: [MISSING_TOKEN, INVALID_TOKEN], 403: [SUSPENDED] };

export const MERCHANT_ACCOUNT_ROUTES: RouteDoc[] = [
  {
    method: 'POST', path: '/merchant/signup', tag: 'Session', auth: 'none', summary: 'Open an account (5 a second per IP address)',
    body: obj({ merchant_name: str(), email: str(), password: str(undefined, { minLength: 8, maxLength: 1024 }), referral_code: str() }, ['merchant_name', 'email', 'password']),
    bodyExample: { merchant_name: 'Acme', email: 'owner@acme.example', password: 'correct-horse-9' },
    responses: { 201: { description: 'the account, its first test and live keys (secrets shown only here) and a session; sets the refresh cookie',
      schema: obj({ merchant: ref('Merchant'), user: ref('User'), api_keys: arr(obj({ api_key: ref('ApiKey'), secret: str() }, ['api_key', 'secret'])), access_token: str(), expires_at: time(), role: ROLE }, ['merchant', 'user', 'api_keys', 'access_token', 'expires_at', 'role']) } },
    errors: { 400: [MERCHANT_NAME_REQUIRED, MERCHANT_NAME_TOO_LONG, INVALID_EMAIL, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG], 409: [EMAIL_TAKEN], 429: [RATE_LIMITED] },
  },
  {
    method: 'POST', path: '/merchant/login', tag: 'Session', auth: 'none', summary: 'Sign in (5 attempts a second per IP address); sets the refresh cookie',
    body: obj({ email: str(), password: str() }, ['email', 'password']),
    responses: { 200: { description: 'an access token', schema: SIGNED_IN } },
    errors: { 400: [CREDENTIALS_REQUIRED], 401: [INVALID_CREDENTIALS], 403: [SUSPENDED], 429: [RATE_LIMITED] },
  },
  {
    method: 'POST', path: '/merchant/auth/refresh', tag: 'Session', auth: 'none', summary: 'A new access token for the refresh_token cookie (rotates the cookie)',
    responses: { 200: { description: 'an access token', schema: SIGNED_IN } }, errors: { 401: [NO_REFRESH_TOKEN, INVALID_TOKEN], 403: [SUSPENDED] },
  },
  {
    method: 'POST', path: '/merchant/auth/logout', tag: 'Session', auth: 'none', summary: 'End this session (the refresh cookie\'s)',
    responses: { 200: { description: 'signed out', schema: message('logged out') } }, errors: SIGN_OUT_ERRORS,
  },
  {
    method: 'POST', path: '/merchant/auth/logout-all', tag: 'Session', auth: 'none', summary: 'End every session of the cookie\'s user',
    responses: { 200: { description: 'signed out everywhere', schema: message('all sessions revoked') } }, errors: SIGN_OUT_ERRORS,
  },
  {
    method: 'GET', path: '/merchant/me', tag: 'Session', auth: 'access_token', summary: 'Who is signed in',
    responses: { 200: { description: 'merchant and user', schema: obj({ merchant: ref('Merchant'), user: ref('User') }, ['merchant', 'user']) } },
  },
  {
    method: 'POST', path: '/merchant/me/password', tag: 'Session', auth: 'access_token', summary: 'Change the password; every session of the user ends',
    body: obj({ current_password: str(), new_password: str(undefined, { minLength: 8, maxLength: 1024 }) }, ['current_password', 'new_password']),
    responses: { 200: { description: 'changed', schema: message('password changed; sign in again') } },
    errors: { 400: [PASSWORDS_REQUIRED, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG], 403: [WRONG_CURRENT_PASSWORD], 429: [RATE_LIMITED] },
  },
  {
    method: 'GET', path: '/merchant/me/email-notifications', tag: 'Session', auth: 'access_token', summary: 'Which notifications are e-mailed to me (README "E-mail")',
    responses: { 200: { description: 'my choice', schema: EMAIL_NOTIFICATIONS } },
  },
  {
    method: 'PATCH', path: '/merchant/me/email-notifications', tag: 'Session', auth: 'access_token', summary: 'Choose which notifications are e-mailed to me (send only what changes)',
    body: obj({ referral_payout_requested: bool(), categories: arr(oneOf([...CATEGORIES]), 'the whole new list of the categories of my current role to e-mail (each once); '
      + 'any other is refused; those chosen under another role are kept, untouched') }),
    bodyExample: { referral_payout_requested: false },
    responses: { 200: { description: 'my choice', schema: EMAIL_NOTIFICATIONS } },
    errors: { 400: [NOTHING_TO_UPDATE, PAYOUT_REQUESTED_MESSAGE, CATEGORIES_MESSAGE] },
  },
  { method: 'GET', path: '/merchant/users', tag: 'Team', auth: 'access_token', summary: 'The team', responses: { 200: { description: 'members', schema: wrap('users', arr(ref('User'))) } } },
  {
    method: 'POST', path: '/merchant/users', tag: 'Team', auth: 'access_token', summary: 'Add a member',
    body: obj({ email: str(), password: str(undefined, { minLength: 8, maxLength: 1024 }), role: ROLE }, ['email', 'password', 'role']),
    responses: { 201: { description: 'the member', schema: wrap('user', ref('User')) } },
    errors: { 400: [INVALID_EMAIL, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG, ROLE_MESSAGE], 409: [EMAIL_TAKEN], 429: [RATE_LIMITED] },
  },
  {
    method: 'PATCH', path: '/merchant/users/:id', tag: 'Team', auth: 'access_token', summary: 'Change a member\'s role (their sessions end)',
    body: obj({ role: ROLE }, ['role']), responses: { 200: { description: 'the member', schema: wrap('user', ref('User')) } },
    errors: { 400: [ROLE_MESSAGE], 404: [NOT_FOUND], 409: [LAST_OWNER] },
  },
  {
    method: 'DELETE', path: '/merchant/users/:id', tag: 'Team', auth: 'access_token', summary: 'Remove a member',
    responses: { 200: { description: 'removed', schema: message('user removed') } }, errors: { 404: [NOT_FOUND], 409: [LAST_OWNER] },
  },
  { method: 'GET', path: '/merchant/invitations', tag: 'Team', auth: 'access_token', summary: 'Invitations (pending, accepted, revoked, expired)', responses: { 200: { description: 'invitations', schema: wrap('invitations', arr(INVITATION)) } } },
  {
    method: 'POST', path: '/merchant/invitations', tag: 'Team', auth: 'access_token', summary: 'Invite a member (valid 7 days; the token is in accept_url only)',
    body: obj({ email: str(), role: ROLE }, ['email', 'role']),
    responses: { 201: { description: 'the invitation', schema: obj({ invitation: INVITATION, accept_url: str() }, ['invitation', 'accept_url']) } },
    errors: { 400: [INVALID_EMAIL, ROLE_MESSAGE], 409: [EMAIL_TAKEN], 429: [RATE_LIMITED] },
  },
  { method: 'DELETE', path: '/merchant/invitations/:id', tag: 'Team', auth: 'access_token', summary: 'Revoke an invitation', responses: { 200: { description: 'revoked', schema: message('invitation revoked') } }, errors: { 404: [NOT_FOUND], 409: [ONLY_PENDING_REVOKED] } },
  {
    method: 'POST', path: '/merchant/invitations/accept', tag: 'Team', auth: 'none', summary: 'Accept an invitation: sets a password and signs in',
    body: obj({ token: str(), password: str(undefined, { minLength: 8, maxLength: 1024 }) }, ['token', 'password']),
    responses: { 201: { description: 'signed in', schema: SIGNED_IN } }, errors: { 400: [INVITATION_INVALID, PASSWORD_TOO_SHORT, PASSWORD_TOO_LONG], 429: [RATE_LIMITED] },
  },
  {
    method: 'GET', path: '/merchant/api-keys', tag: 'API keys', auth: 'access_token', summary: 'Keys of a mode, revoked included', query: MODE,
    responses: { 200: { description: 'keys', schema: wrap('api_keys', arr(ref('ApiKey'))) } },
  },
  {
    method: 'POST', path: '/merchant/api-keys', tag: 'API keys', auth: 'access_token', summary: 'Create a key; its secret is shown only in this answer', query: MODE,
    body: obj({ label: str(undefined, { maxLength: 100 }), store_id: str(), access: oneOf(['full', 'read']) }),
    responses: { 201: { description: 'the key and its secret', schema: obj({ api_key: ref('ApiKey'), secret: str('64 hex characters') }, ['api_key', 'secret']) } },
    errors: { 400: [UNKNOWN_STORE, ACCESS_INVALID, LABEL_INVALID] },
  },
  {
    method: 'DELETE', path: '/merchant/api-keys/:id', tag: 'API keys', auth: 'access_token', summary: 'Revoke a key (it stops working at once)',
    responses: { 200: { description: 'revoked', schema: message('api key revoked') } }, errors: { 404: [NOT_FOUND] },
  },
  { method: 'GET', path: '/merchant/stores', tag: 'Stores', auth: 'access_token', summary: 'Stores', responses: { 200: { description: 'stores', schema: wrap('stores', arr(ref('Store'))) } } },
  {
    method: 'POST', path: '/merchant/stores', tag: 'Stores', auth: 'access_token', summary: 'Create a store', body: obj({ name: STORE_NAME }, ['name']),
    responses: { 201: { description: 'the store', schema: wrap('store', ref('Store')) } }, errors: { 400: [STORE_NAME_INVALID] },
  },
  {
    method: 'PATCH', path: '/merchant/stores/:id', tag: 'Stores', auth: 'access_token', summary: 'Rename a store', body: obj({ name: STORE_NAME }, ['name']),
    responses: { 200: { description: 'the store', schema: wrap('store', ref('Store')) } }, errors: { 400: [STORE_NAME_INVALID], 404: [NOT_FOUND] },
  },
  {
    method: 'PATCH', path: '/merchant/settings', tag: 'Settings', auth: 'access_token', summary: 'Change settings (send only the changed fields)',
    body: obj({
      underpaid_tolerance_bps: int(undefined, { minimum: 0, maximum: 2000 }), accept_other_assets: bool(), settlement: oneOf(['direct', 'custodial', 'scheduled']),
      payout_schedule: oneOf(['instant', 'daily', 'weekly']), fees_paid_by_customer: bool(), convert_into: str('cheapest, order, or a coin'),
      hide_below_minimum: bool(), enabled_tokens: nullable(arr(str())),
    }),
    responses: { 200: { description: 'the merchant', schema: wrap('merchant', ref('Merchant')) } },
    errors: {
      400: [NOTHING_TO_UPDATE, TOLERANCE_RANGE, SETTLEMENT_INVALID, PAYOUT_SCHEDULE_INVALID, CONVERT_INTO_INVALID, unsupportedToken('DOGE2'), ENABLED_TOKENS_LIST, ENABLED_TOKENS_EMPTY,
        ...['accept_other_assets', 'fees_paid_by_customer', 'hide_below_minimum'].map(mustBeBoolean)],
    },
  },
  {
    method: 'GET', path: '/merchant/tokens', tag: 'Settings', auth: 'access_token', summary: 'Every coin with the account\'s settings applied', query: MODE,
    responses: { 200: { description: 'coins with enabled, settles_to, paid_out_in', schema: wrap('tokens', arr(ref('TokenInfo'))) } },
  },
  {
    method: 'POST', path: '/merchant/live', tag: 'Settings', auth: 'access_token', summary: 'Turn live mode on or off', body: obj({ enabled: bool() }, ['enabled']),
    responses: { 200: { description: 'the merchant', schema: wrap('merchant', ref('Merchant')) } }, errors: { 400: [ENABLED_REQUIRED] },
  },
  {
    method: 'GET', path: '/merchant/audit', tag: 'Audit', auth: 'access_token', summary: 'The audit log, newest first',
    query: { action: str('exact, or a prefix ending in a dot'), subject: str(), payment_id: str(), actor_id: str(), from: str('YYYY-MM-DD'), to: str('YYYY-MM-DD'), limit: listLimit(LIST_AUDIT), offset: int() },
    responses: { 200: { description: 'a page of entries', schema: page('entries', ref('AuditEntry')) } }, errors: { 400: [dateMessage('from'), dateMessage('to')] },
  },
  {
    method: 'GET', path: '/merchant/notifications', tag: 'Notifications', auth: 'access_token', summary: 'Notifications, newest first',
    query: { ...MODE, category: str(), unread: oneOf(['true'], 'only unread'), limit: listLimit(LIST_DEFAULT), offset: int() },
    responses: { 200: { description: 'a page of notifications', schema: obj({ notifications: arr(NOTIFICATION), total: int(), unread: int(), limit: int(), offset: int() }, ['notifications', 'unread']) } },
    errors: { 400: [CATEGORY_MESSAGE, UNREAD_MESSAGE] },
  },
  {
    method: 'POST', path: '/merchant/notifications/read', tag: 'Notifications', auth: 'access_token', summary: 'Mark notifications read',
    body: obj({ ids: arr(str()), all: bool(), livemode: bool() }), responses: { 200: { description: 'unread left', schema: obj({ unread: int() }, ['unread']) } }, errors: { 400: [READ_BODY_MESSAGE, LIVEMODE_MESSAGE] },
  },
  {
    method: 'GET', path: '/merchant/support/messages', tag: 'Support', auth: 'access_token', summary: 'The support conversation, oldest first',
    query: { before: str('a message id'), limit: listLimit(LIST_DEFAULT) },
    responses: { 200: { description: 'messages', schema: obj({ messages: arr(SUPPORT_MESSAGE), unread: int(), limit: int() }, ['messages', 'unread', 'limit']) } },
    errors: { 400: [BEFORE_INVALID] },
  },
  {
    method: 'POST', path: '/merchant/support/messages', tag: 'Support', auth: 'access_token', summary: 'Write to support', body: SUPPORT_BODY,
    responses: { 201: { description: 'the message', schema: wrap('message', SUPPORT_MESSAGE) } }, errors: { 400: [BODY_INVALID] },
  },
  {
    method: 'PATCH', path: '/merchant/support/messages/:id', tag: 'Support', auth: 'access_token', summary: 'Edit one\'s own message', body: SUPPORT_BODY,
    responses: { 200: { description: 'the message with edited_at', schema: wrap('message', SUPPORT_MESSAGE) } },
    errors: { 400: [BODY_INVALID], 403: [INSUFFICIENT_PERMISSIONS], 404: [NOT_FOUND], 409: [MESSAGE_DELETED] },
  },
  {
    method: 'DELETE', path: '/merchant/support/messages/:id', tag: 'Support', auth: 'access_token', summary: 'Delete a message (its author, or an owner)',
    responses: { 200: { description: 'the message with deleted_at', schema: wrap('message', SUPPORT_MESSAGE) } }, errors: { 403: [INSUFFICIENT_PERMISSIONS], 404: [NOT_FOUND] },
  },
  {
    method: 'POST', path: '/merchant/support/read', tag: 'Support', auth: 'access_token', summary: 'Mark support\'s messages read',
    responses: { 200: { description: 'read', schema: obj({ side: str(), read_at: time(), unread: int() }, ['side', 'unread']) } },
  },
];
