// The objects of spec part 2 as schemas. `required` names only the fields every answer carries;
// optional fields are absent when they do not apply (spec: "Optional fields are absent").
import { SIMULATION_OUTCOMES } from '../payments/index.ts';
import { PAYOUT_STATUSES } from '../settlement/payouts/payout-store.ts';
import { arr, anyObject, bool, dec, int, nullable, obj, oneOf, ref, str, time, type Schema } from './schema.ts';

const STATUSES = ['pending', 'partially_paid', 'detecting', 'confirmed', 'underpaid', 'expired', 'failed'];
const ROLES = ['owner', 'developer', 'finance', 'viewer'];

export const ERROR: Schema = obj({ error: str('the spec\'s exact message (spec part 7)') }, ['error'], 'Every error answer.');

export const TOKEN_INFO = obj({
  token: str(), chain: str(), min_usd: dec('current minimum payment'), network_fee_usd: dec('fixed part of the network fee'),
  network_fee_bps: int('share added for a coin that is converted'), fee_note: str('finality note'),
  amount_due_usd: dec('what the customer pays in that coin (token_options, fees passed on)'),
  enabled: bool('merchant listing'), settles_to: oneOf(['wallet', 'balance'], 'merchant listing'), paid_out_in: str('merchant listing'),
}, ['token', 'chain', 'min_usd', 'network_fee_usd', 'fee_note']);

export const DEPOSIT = obj({
  tx_id: str(), token: str(), amount: dec(), usd_value: dec(), counted: bool(), confirmations: int(), confirmations_required: int(),
  status: str(), simulated: bool(), late: bool(), sender: str('trail only'), block: int('trail only'), seen_at: time('trail only'), final_at: time('trail only'),
}, ['tx_id', 'amount', 'usd_value', 'counted', 'status']);

export const PAYMENT = obj({
  id: str(), merchant_id: str('omitted in the payer\'s view'), store_id: str('payments of a storefront key'), order_id: str(),
  status: oneOf(STATUSES), deposit_address: str('empty until a coin is chosen'), token: str('empty until chosen'), chain: str(), livemode: bool(),
  crypto_amount: dec('amount the customer must send'), received_amount: dec(), usd_amount: dec('merchant\'s price'),
  amount_due_usd: dec('what the customer pays, fees included when passed on'), received_usd: dec(), fees_paid_by_customer: bool(),
  network_fee: dec(), network_fee_usd: dec(), network_fee_note: str(), network_fee_bps: int(), settlement: oneOf(['direct', 'custodial', 'scheduled']),
  rate_locked: dec('dollar price of one token, locked at coin choice'), deposits: arr(ref('Deposit')), expires_at: time(), created_at: time(),
  confirmed_at: time(), qr_payload: str('the deposit address alone'), destination_tag: int('XRP only'), confirmations: int(), confirmations_required: int(),
  description: str(), metadata: anyObject('merchant\'s data; private'), customer_email: str(), success_url: str(), cancel_url: str(),
  webhook_url: str('per-payment notification URL; private'), checkout_token: str(), checkout_url: str(),
  token_options: arr(ref('TokenInfo'), 'when no coin is chosen'), price_amount: str(), price_currency: str(), price_rate: str(), extra_usd: dec(),
  merchant_name: str('payer\'s view: who is paid'), store_name: str('payer\'s view: the store of a storefront key\'s payment'),
  simulation: obj({ outcome: oneOf(SIMULATION_OUTCOMES), state: oneOf(['running', 'done']) }, ['outcome', 'state'], 'test payments only'),
}, ['id', 'order_id', 'status', 'deposit_address', 'token', 'chain', 'livemode', 'received_amount', 'usd_amount', 'amount_due_usd',
  'received_usd', 'fees_paid_by_customer', 'settlement', 'deposits', 'expires_at', 'created_at', 'qr_payload']);

export const WEBHOOK = obj({
  livemode: bool(), url: nullable(str()), secret: str('signing secret, 64 hex characters'), created_at: time(), updated_at: time(),
}, ['livemode', 'url']);

export const DELIVERY = obj({
  id: str('sent as X-Webhook-Id'), merchant_id: str(), livemode: bool(), target: oneOf(['account', 'payment']), url: str('where last posted; before the first attempt, where it is going'),
  event_id: str(), event_type: str(), payload: str('exact body posted'), status: oneOf(['pending', 'sending', 'delivered', 'failed', 'resolved']),
  attempts: int(), max_attempts: int(), next_attempt_at: time(), last_status_code: int(), last_error: str(),
  last_attempt_at: time(), delivered_at: time(), resolved_at: time(), resolution_note: str(), created_at: time(),
  history: arr(obj({ at: time(), url: str(), signed: int(), status_code: int(), error: str(), response: str(), millis: int(), note: str() })),
}, ['id', 'event_id', 'event_type', 'status', 'attempts', 'max_attempts', 'created_at']);

export const API_KEY = obj({
  id: str(), merchant_id: str(), livemode: bool(), store_id: str(), label: str(), access: oneOf(['full', 'read']), last4: str(),
  created_by: str(), created_at: time(), last_used_at: time(), revoked_at: time(),
}, ['id', 'merchant_id', 'livemode', 'label', 'access', 'last4', 'created_at']);

export const MERCHANT = obj({
  id: str(), name: str(), status: oneOf(['active', 'suspended']), fee_bps: int(), live_enabled: bool(), underpaid_tolerance_bps: int(),
  accept_other_assets: bool(), settlement: oneOf(['direct', 'custodial', 'scheduled']), payout_schedule: oneOf(['instant', 'daily', 'weekly']),
  payout_scheduled_at: time(), fees_paid_by_customer: bool(), convert_into: str('cheapest, order, or a coin'), hide_below_minimum: bool(),
  enabled_tokens: arr(str()), created_at: time(), updated_at: time(),
}, ['id', 'name', 'status', 'live_enabled']);

export const USER = obj({ id: str(), merchant_id: str(), email: str(), role: oneOf(ROLES), created_at: time(), last_login_at: time() }, ['id', 'email', 'role']);
export const STORE = obj({ id: str(), merchant_id: str(), name: str(), created_at: time(), updated_at: time() }, ['id', 'name']);

/** Spec 2 "Conversion object": amounts in the coin given and the coin bought. */
export const CONVERSION = obj({
  via: oneOf(['swap', 'exchange', 'platform']), from: str('the coin given'), amount_in: dec(), to: str('the coin bought'), amount_out: dec(),
  status: oneOf(['pending', 'done', 'skipped']), note: str('why it was skipped, or how it was done'),
}, ['via', 'from', 'amount_in', 'to', 'amount_out', 'status']);

export const SETTLEMENT = obj({
  id: str(), payment_id: str(), store_id: str(), deposit_tx: str(), deposit_txs: arr(str()), livemode: bool(), mode: oneOf(['direct', 'custodial']),
  token: str(), chain: str(), conversion: ref('Conversion'), amount: dec(), service_fee: dec(), network_fee: dec(), conversion_fee: dec(), net: dec(),
  usd_value: dec(), usd_rate: dec(), service_fee_usd: dec(), network_fee_usd: dec(), conversion_fee_usd: dec(), net_usd: dec(),
  destination: str(), destination_tag: int(), tx_id: str(), status: oneOf(['pending', 'completed', 'held', 'failed']), note: str(),
  awaits_address: obj({ until: time() }), created_at: time(), completed_at: time('once completed'),
}, ['id', 'payment_id', 'livemode', 'token', 'chain', 'status']);

export const LEDGER_ENTRY = obj({
  id: str(), merchant_id: str(), type: str(), token: str(), chain: str(), amount: dec('signed'), usd_amount: dec(), reference: str(), note: str(), created_at: time(),
}, ['id', 'type', 'token', 'amount']);
export const BALANCE = obj({ token: str(), chain: str(), available: dec(), pending_payout: dec() }, ['token', 'available']);

export const PAYOUT_ADDRESS = obj({
  id: str(), merchant_id: str(), livemode: bool(), token: str(), chain: str(), address: str(), tag: int('XRP only'), label: str(),
  default: bool(), active_at: time(), created_by: str(), created_at: time(),
}, ['id', 'token', 'address']);

/**
 * Spec 2 "Merchant payout object" (src/settlement/json.ts payoutJson): `token`/`chain` are what is
 * sent, `from_token`/`from_chain` the balance it draws on; amounts in `from_token`.
 */
export const PAYOUT = obj({
  id: str(), merchant_id: str(), livemode: bool(), token: str('the coin sent'), chain: str(), from_token: str('the balance it draws on'), from_chain: str(),
  amount: dec('taken from the balance'), network_fee: dec('taken from amount'), send_amount: dec('amount less network_fee'),
  amount_usd: dec(), network_fee_usd: dec(), send_amount_usd: dec(), usd_rate: dec('dollar price of one from_token, fixed at request'),
  address_id: str(), address: str('fixed at request'), tag: int('XRP only'), status: oneOf(PAYOUT_STATUSES),
  requested_by: str('a user id, `scheduler` or `auto`'), tx_id: str('once sent'), review_note: str('the operator\'s note on a rejection'),
  created_at: time(), updated_at: time(), approved_at: time(), rejected_at: time(), sent_at: time(), canceled_at: time(),
}, ['id', 'merchant_id', 'livemode', 'token', 'chain', 'from_token', 'from_chain', 'amount', 'network_fee', 'send_amount', 'amount_usd',
  'network_fee_usd', 'send_amount_usd', 'usd_rate', 'address_id', 'address', 'status', 'requested_by', 'created_at', 'updated_at'], 'A merchant payout.');
export const REFERRAL_PAYOUT = obj({
  id: str(), affiliate_id: str(), merchant_name: str(), token: str(), chain: str(), amount: dec(), network_fee: dec(), send_amount: dec(),
  address_id: str(), address: str(), status: oneOf(['requested', 'processing', 'paid', 'rejected', 'canceled']), due_at: time(), requested_by: str(),
  tx_id: str(), note: str('rejection reason, or text when paid outside the usual flow'), approved_at: time(), paid_at: time(), rejected_at: time(),
  canceled_by: str(), canceled_at: time(), created_at: time(), updated_at: time(),
}, ['id', 'amount', 'status']);
export const REFERRAL = obj({
  merchant_id: str(), merchant_name: str(), affiliate_id: str(), code: str(), signed_up_at: time(), status: oneOf(['active', 'void']),
  void_reason: str(), voided_at: time(), attached_by: str('when attached by hand'), created_at: time(),
  earns_until: nullable(time('null: as long as it uses the service')), payments: int(), volume_usd: dec(), earned_usd: dec(), last_earned_at: time(),
}, ['merchant_id', 'merchant_name', 'affiliate_id', 'code', 'signed_up_at', 'status', 'created_at', 'earns_until', 'payments', 'volume_usd', 'earned_usd']);
export const COMMISSION = obj({
  id: str('<payment id>:<transaction id>'), affiliate_id: str(), merchant_id: str(), merchant_name: str(), payment_id: str(), deposit_usd: dec(),
  fee_usd: dec(), rate_bps: int(), token: str(), amount: dec('fee times rate'), created_at: time(),
}, ['id', 'affiliate_id', 'merchant_id', 'payment_id', 'amount', 'created_at']);

/** Spec 2 "Audit entry": who acted (src/audit/audit.ts Actor). */
export const ACTOR = obj({
  kind: oneOf(['merchant', 'api_key', 'customer', 'admin', 'system', 'anonymous']), id: str(), merchant_id: str(), ip: str(), user_agent: str(),
  request_id: str('the request\'s X-Request-Id'), email: str('a team member'), role: oneOf(ROLES, 'a team member'),
}, ['kind']);

export const AUDIT_ENTRY = obj({
  id: str(), at: time(), action: str(), actor: ref('Actor'), merchant_id: str(), payment_id: str('entries about a payment'), subject: str(), before: {}, after: {}, note: str(),
}, ['id', 'at', 'action', 'actor']);

export const EVENT = obj({
  id: str('24 hex characters, same on retries'), type: str(), livemode: bool(), created_at: time(), data: anyObject(),
  merchant_id: str('stored events only'), payment_id: str('stored events only'),
}, ['id', 'type', 'livemode', 'created_at', 'data']);

export const SCHEMAS: Record<string, Schema> = {
  Error: ERROR, TokenInfo: TOKEN_INFO, Deposit: DEPOSIT, Payment: PAYMENT, Webhook: WEBHOOK, Delivery: DELIVERY, ApiKey: API_KEY,
  Merchant: MERCHANT, User: USER, Store: STORE, Settlement: SETTLEMENT, LedgerEntry: LEDGER_ENTRY, Balance: BALANCE,
  Conversion: CONVERSION, PayoutAddress: PAYOUT_ADDRESS, Payout: PAYOUT, ReferralPayout: REFERRAL_PAYOUT, Referral: REFERRAL, Commission: COMMISSION, Actor: ACTOR, AuditEntry: AUDIT_ENTRY, Event: EVENT,
};
