// Dashboard routes of payments, webhooks, money and referrals (spec 4.4; CONTRACT Payment links,
// Customers, Referral program). Roles come from the routes themselves.
import {
  DAYS_MESSAGE, PAYMENT_NOT_FOUND, SIMULATION_OUTCOMES, SIMULATION_RUNNING, TEST_PAYMENTS_ONLY,
} from '../../payments/index.ts';
import type { RouteDoc } from '../describe.ts';
import { anyObject, arr, bool, dec, int, listLimit, message, obj, oneOf, page, ref, str, time, wrap } from '../schema.ts';
import { LIST_DEFAULT, LIST_EVENTS, LIST_LEDGER } from '../../platform/list-params.ts';
import { CHANGED_CONCURRENTLY } from '../../payments/accounting.ts';
import { STORE_NAME } from './merchant-account.ts';
import { CREATE_PAYMENT_BODY, CREATE_PAYMENT_ERRORS, PAYMENT_SEARCH, PAYMENT_SEARCH_ERRORS, SIMULATE_ERRORS, URL_ERRORS, usdFieldErrors } from './v1.ts';
import { onlyFailedResolve, STATUS_FILTER_MESSAGE } from '../../webhooks/delivery-store.ts';
import { ADDRESS_ID_REQUIRED, UNKNOWN_PAYOUT_ADDRESS, UNKNOWN_FROM, FROM_MISMATCH, PAYOUT_STATUS_INVALID, PAYOUT_TOKEN_INVALID, addressNotActive, crossBalance } from '../../settlement/payouts/payout-service.ts';
import { amountBelowFee, balanceHolds, PAYOUT_STATUSES } from '../../settlement/payouts/payout-store.ts';
import { TOKENS } from '../../tokens/index.ts';
import { SETTLEMENT_MODES, SETTLEMENT_MODE_INVALID, SETTLEMENT_STATUSES, SETTLEMENT_STATUS_INVALID } from '../../settlement/statement.ts';
import { givenOnce } from '../../payments/list-filters.ts';
import { DEFAULT_ONLY_TRUE, LABEL_INVALID } from '../../settlement/address-rules.ts';
import { AMOUNT_INVALID, MIN_PAYOUT_MESSAGE, tooManyDecimals } from '../../settlement/payouts/payout-math.ts';
import { invalidAddressMessage } from '../../chains/addresses/validate.ts';
import { OWN_ADDRESS, tokenContractAddress } from '../../chains/wallets/own-addresses.ts';
import { STATUS_MESSAGE as REFERRAL_STATUS_MESSAGE } from '../../affiliate/referrals.ts';
import { INVALID_TRON_ADDRESS, NOT_USDT_TRON, NO_PAYOUT_TARGET, belowNetworkFee, referralBalanceHolds, STATUS_MESSAGE as REFERRAL_PAYOUT_STATUS_MESSAGE, UNKNOWN_PAYOUT_ADDRESS as REFERRAL_UNKNOWN_PAYOUT_ADDRESS } from '../../affiliate/payouts/errors.ts';
import { minPayoutMessage } from '../../affiliate/terms.ts';
import { MAX_NAME as CUSTOMER_MAX_NAME, Q_INVALID } from '../../customers/input.ts';
import { MAX_DESCRIPTION as LINK_MAX_DESCRIPTION, NAME_INVALID as LINK_NAME_INVALID } from '../../links/input.ts';
import { AMOUNT_REQUIRED, TOKENS_NOT_ARRAY } from '../../payments/index.ts';
import { DESCRIPTION_TOO_LONG, pageUrlMessage, pageUrlTooLongMessage } from '../../payments/create-input.ts';
import { notEnabled } from '../../payments/coin.ts';
import { unsupportedToken } from '../../tokens/catalog.ts';
import { METADATA_NOT_OBJECT, METADATA_TOO_LARGE, nulMessage, textMessage } from '../../platform/fields.ts';
import { INVALID_EMAIL } from '../../accounts/index.ts';
import { BEFORE_MESSAGE, COULD_NOT_REMOVE, COULD_NOT_ROLL, COULD_NOT_SET, NO_URL_SET_FIRST, NOTE_MESSAGE } from '../../webhooks/index.ts';
import { UNKNOWN_STORE } from '../../accounts/index.ts';
import { ADDRESS_OR_ID, COULD_NOT_LIST, COULD_NOT_REQUEST, PAYOUT_OPEN, TOO_MANY_DECIMALS } from '../../affiliate/index.ts';
import { CUSTOMER_EXISTS, EMAIL_REQUIRED } from '../../customers/index.ts';
import { ACTIVE_INVALID, LIVE_LINK_OFF } from '../../links/index.ts';
import { NOTHING_TO_UPDATE, NOT_FOUND, RATE_LIMITED } from '../../platform/errors.ts';
import { AMOUNT_NOT_POSITIVE, ONLY_XRP_TAGS, PASSWORD_INCORRECT, PAYOUT_STATE_CONFLICT, SETTLEMENT_NOT_FOUND } from '../../settlement/index.ts';

// A link is a payment template checked by the payment's own rules (src/links/input.ts): its refusals
// are the payment body's, plus its name and store.
const LINK_ERRORS = [
  LINK_NAME_INVALID, AMOUNT_REQUIRED, ...usdFieldErrors('amount_usd'), TOKENS_NOT_ARRAY, unsupportedToken('DOGE2'), notEnabled('XRP'),
  DESCRIPTION_TOO_LONG, pageUrlMessage('success_url'), pageUrlMessage('cancel_url'), pageUrlTooLongMessage('success_url'), pageUrlTooLongMessage('cancel_url'),
  nulMessage('description'), UNKNOWN_STORE,
];
const LINK_PATCH_ERRORS = [NOTHING_TO_UPDATE, LINK_NAME_INVALID, textMessage('description', LINK_MAX_DESCRIPTION), nulMessage('name'), ACTIVE_INVALID];
const CUSTOMER_ERRORS = [textMessage('name', CUSTOMER_MAX_NAME), METADATA_NOT_OBJECT, METADATA_TOO_LARGE];
const MODE = { mode: oneOf(['test'], 'test for the test mode; anything else, or nothing, live') };
const PAGE = { limit: listLimit(LIST_DEFAULT), offset: int('default 0') };
const LINK = obj({
  id: str(), merchant_id: str(), livemode: bool(), store_id: str(), name: str(), amount_usd: dec(), description: str(), tokens: arr(str()),
  success_url: str(), cancel_url: str(), active: bool(), url: str(), payments: int(), volume_usd: dec(), created_at: time(), updated_at: time(),
}, ['id', 'name', 'amount_usd', 'active']);
const CUSTOMER = obj({
  id: str(), merchant_id: str(), livemode: bool(), email: str(), name: str(), metadata: anyObject(), payments: int(), volume_usd: dec(),
  first_payment_at: time(), last_payment_at: time(), created_at: time(), updated_at: time(), recent_payments: arr(ref('Payment')),
}, ['id', 'email']);
const WEBHOOK = { 200: { description: 'the webhook', schema: wrap('webhook', ref('Webhook')) } };
const PAYOUT_ADDRESS_BODY = obj({ token: str(), address: str(), tag: int('XRP only'), label: str(), default: bool(), password: str('required to add, or to change address or tag') });
const PAYOUT_ERRORS = [ADDRESS_ID_REQUIRED, UNKNOWN_PAYOUT_ADDRESS, AMOUNT_INVALID, AMOUNT_NOT_POSITIVE, UNKNOWN_FROM, FROM_MISMATCH];
/**
 * The quote's refusals, which a payout request also answers (the amount in more decimals than the balance coin, a balance coin the
 * address cannot take, an address stored before the gateway refused its own addresses and token contracts).
 */
export const PAYOUT_QUOTE_ERRORS = [...PAYOUT_ERRORS, tooManyDecimals(6), crossBalance('ETH', 'USDT_TRC20'), OWN_ADDRESS, tokenContractAddress('USDT_TRC20')];
/** A payout to an address added or changed less than 24 hours ago (the time is the address's active_at). */
export const ADDRESS_NOT_ACTIVE_EXAMPLE = addressNotActive(new Date('2026-01-02T03:04:05.000Z'));
/** Dollars by chain (only chains with a confirmed payment). */
const BY_CHAIN = { ...anyObject('chain to dollars'), additionalProperties: dec() };
const FIGURES = obj({ confirmed: int(), volume_usd: dec(), by_chain: BY_CHAIN });
/** A transfer to a payment's address after it could take no more (src/chains/watch/unmatched.ts). */
const UNMATCHED_DEPOSIT = obj({
  id: str(), merchant_id: str(), chain: str(), token: str(), address: str(), destination_tag: int('XRP only'), tx_id: str(), amount: dec(),
  usd_value: dec('absent when the coin had no price'), block: int(), seen_at: time(),
}, ['id', 'chain', 'token', 'address', 'tx_id', 'amount', 'seen_at']);
/** A trail's settlement with the ids of the transfers it made (src/settlement/statement.ts). */
const TRAIL_SETTLEMENT = obj({ settlement: ref('Settlement'), transfers: arr(obj({ intent_id: str() }, ['intent_id'])) }, ['settlement', 'transfers']);
/** GET /merchant/payouts/quote; the amounts after `available` only when an amount is given. */
const PAYOUT_QUOTE = obj({
  address_id: str(), token: str('the coin sent'), chain: str(), from_token: str('the balance it draws on'), from_chain: str(),
  network_fee: dec('in from_token'), network_fee_usd: dec(), min_payout_usd: dec(), available: dec('live balance of from_token'),
  amount: dec(), send_amount: dec('amount less network_fee, 0 when the fee is more'), amount_usd: dec(), send_amount_usd: dec(), usd_rate: dec(),
}, ['address_id', 'token', 'chain', 'from_token', 'from_chain', 'network_fee', 'network_fee_usd', 'min_payout_usd', 'available']);

export const MERCHANT_MONEY_ROUTES: RouteDoc[] = [
  {
    method: 'GET', path: '/merchant/dashboard', tag: 'Payments', auth: 'access_token', summary: 'Dashboard figures of a mode', query: MODE,
    responses: { 200: { description: 'figures', schema: obj({
      livemode: bool(), confirmed_today: int(), volume_usd_today: dec(), pending: int(), expired_today: int(), failed_webhooks: int(), by_chain: BY_CHAIN,
      periods: obj({ today: FIGURES, last_7_days: FIGURES, last_30_days: FIGURES, all_time: FIGURES }), generated_at: time(),
    }, ['livemode', 'confirmed_today', 'volume_usd_today', 'pending', 'periods']) } },
  },
  {
    method: 'GET', path: '/merchant/payments', tag: 'Payments', auth: 'access_token', summary: 'List payments of a mode, newest first',
    query: { ...MODE, status: str(), token: str(), chain: str(), store_id: str(), ...PAYMENT_SEARCH, ...PAGE },
    responses: { 200: { description: 'a page of payments', schema: page('payments', ref('Payment')) } },
    errors: { 400: PAYMENT_SEARCH_ERRORS },
  },
  {
    method: 'POST', path: '/merchant/payments', tag: 'Payments', auth: 'access_token', summary: 'Create a test payment from the dashboard (the body of POST /v1/payments)',
    query: { mode: oneOf(['test'], 'required: only test payments are made here') }, body: CREATE_PAYMENT_BODY,
    responses: {
      201: { description: 'the new test payment', schema: ref('Payment') },
      200: { description: 'the open payment already created for this order_id', schema: ref('Payment') },
    },
    errors: { 400: [TEST_PAYMENTS_ONLY, ...CREATE_PAYMENT_ERRORS] },
  },
  {
    method: 'GET', path: '/merchant/dashboard/series', tag: 'Payments', auth: 'access_token', summary: 'Confirmed payments per UTC day and chain, for a chart',
    query: { ...MODE, days: int('1 to 366, default 30; the span ends today') },
    responses: { 200: { description: 'every day of the span, empty ones too', schema: obj({
      livemode: bool(), days: int(), from: str(), to: str(), chains: arr(str()),
      series: arr(obj({ date: str(), confirmed: int(), volume_usd: dec(), by_chain: BY_CHAIN }, ['date', 'confirmed', 'volume_usd', 'by_chain'])), generated_at: time(),
    }, ['livemode', 'days', 'from', 'to', 'chains', 'series']) } },
    errors: { 400: [DAYS_MESSAGE] },
  },
  { method: 'GET', path: '/merchant/payments/:id', tag: 'Payments', auth: 'access_token', summary: 'Read a payment (either mode)', responses: { 200: { description: 'the payment', schema: ref('Payment') } }, errors: { 404: [PAYMENT_NOT_FOUND] } },
  {
    method: 'GET', path: '/merchant/payments/:id/events', tag: 'Payments', auth: 'access_token', summary: 'The payment\'s events, oldest first (what its webhook receives)',
    query: { limit: listLimit(LIST_EVENTS), offset: int('default 0') }, responses: { 200: { description: 'a page of events', schema: page('events', ref('Event')) } }, errors: { 404: [PAYMENT_NOT_FOUND] },
  },
  {
    method: 'GET', path: '/merchant/payments/:id/trail', tag: 'Payments', auth: 'access_token', summary: 'Everything that happened to a payment',
    responses: { 200: { description: 'the trail', schema: wrap('trail', obj({
      payment: ref('Payment'), deposits: arr(ref('Deposit')), unmatched_deposits: arr(UNMATCHED_DEPOSIT), events: arr(ref('Event')), webhook_deliveries: arr(ref('Delivery')),
      settlements: arr(TRAIL_SETTLEMENT), ledger: arr(ref('LedgerEntry')), audit: arr(ref('AuditEntry')), generated_at: time(),
    }, ['payment'])) } },
    errors: { 404: [PAYMENT_NOT_FOUND] },
  },
  {
    method: 'POST', path: '/merchant/payments/:id/simulate', tag: 'Payments', auth: 'access_token', summary: 'Simulate an outcome on a test payment',
    body: obj({ outcome: oneOf(SIMULATION_OUTCOMES) }, ['outcome']), responses: { 200: { description: 'the payment with simulation running', schema: ref('Payment') } },
    errors: { 400: SIMULATE_ERRORS, 404: [PAYMENT_NOT_FOUND], 409: [SIMULATION_RUNNING, CHANGED_CONCURRENTLY] },
  },
  { method: 'GET', path: '/merchant/webhook', tag: 'Webhook', auth: 'access_token', summary: 'The webhook of a mode', query: MODE, responses: WEBHOOK },
  {
    method: 'PUT', path: '/merchant/webhook', tag: 'Webhook', auth: 'access_token', summary: 'Set the webhook URL of a mode', query: MODE,
    body: obj({ url: str() }, ['url']), responses: WEBHOOK, errors: { 400: URL_ERRORS, 500: [COULD_NOT_SET] },
  },
  { method: 'DELETE', path: '/merchant/webhook', tag: 'Webhook', auth: 'access_token', summary: 'Remove the webhook URL of a mode', query: MODE, responses: WEBHOOK, errors: { 500: [COULD_NOT_REMOVE] } },
  {
    method: 'POST', path: '/merchant/webhook/test', tag: 'Webhook', auth: 'access_token', summary: 'Queue a ping', query: MODE,
    responses: { 202: { description: 'the queued delivery', schema: wrap('delivery', ref('Delivery')) } }, errors: { 400: [NO_URL_SET_FIRST] },
  },
  {
    method: 'POST', path: '/merchant/webhook/roll-secret', tag: 'Webhook', auth: 'access_token', summary: 'A new signing secret; the old one stops working at once', query: MODE,
    responses: WEBHOOK, errors: { 500: [COULD_NOT_ROLL] },
  },
  {
    method: 'GET', path: '/merchant/webhooks/deliveries', tag: 'Webhook', auth: 'access_token', summary: 'Deliveries, newest first, paged by `before`',
    query: {
      ...MODE, status: oneOf(['pending', 'sending', 'delivered', 'failed', 'resolved']), limit: listLimit(LIST_DEFAULT),
      before: str('the id of the last delivery already shown: the next page, older than it (a page shorter than `limit` is the last)'),
    },
    responses: { 200: { description: 'deliveries', schema: obj({ deliveries: arr(ref('Delivery')), limit: int(), offset: int('always 0: the list is paged by `before`') }, ['deliveries', 'limit', 'offset']) } },
    errors: { 400: [BEFORE_MESSAGE, STATUS_FILTER_MESSAGE] },
  },
  { method: 'GET', path: '/merchant/webhooks/deliveries/:id', tag: 'Webhook', auth: 'access_token', summary: 'A delivery with its history', responses: { 200: { description: 'the delivery', schema: wrap('delivery', ref('Delivery')) } }, errors: { 404: [NOT_FOUND] } },
  {
    method: 'POST', path: '/merchant/webhooks/deliveries/:id/redeliver', tag: 'Webhook', auth: 'access_token', summary: 'Send a delivery again (seven more tries)',
    responses: { 202: { description: 'queued', schema: message('redelivery queued') } }, errors: { 404: [NOT_FOUND] },
  },
  {
    method: 'POST', path: '/merchant/webhooks/deliveries/:id/resolve', tag: 'Webhook', auth: 'access_token', summary: 'Mark a failed delivery resolved',
    body: obj({ note: str(undefined, { maxLength: 500 }) }), responses: { 200: { description: 'the delivery', schema: wrap('delivery', ref('Delivery')) } },
    errors: { 400: [NOTE_MESSAGE], 404: [NOT_FOUND], 409: [onlyFailedResolve('pending')] },
  },
  { method: 'GET', path: '/merchant/balances', tag: 'Money', auth: 'access_token', summary: 'Balances of a mode', query: MODE, responses: { 200: { description: 'balances', schema: wrap('balances', arr(ref('Balance'))) } } },
  {
    method: 'GET', path: '/merchant/ledger', tag: 'Money', auth: 'access_token', summary: 'Ledger entries, newest first', query: { ...MODE, token: str(), limit: listLimit(LIST_LEDGER), offset: int() },
    responses: { 200: { description: 'a page of entries', schema: page('entries', ref('LedgerEntry')) } }, errors: { 400: [unsupportedToken('DOGE2')] },
  },
  {
    method: 'GET', path: '/merchant/ledger.csv', tag: 'Money', auth: 'access_token', summary: 'The whole statement as CSV', query: { ...MODE, token: str() },
    responses: { 200: { description: 'columns id, created_at, type, token, chain, amount, usd_amount, reference, note', contentType: 'text/csv', schema: str() } }, errors: { 400: [unsupportedToken('DOGE2')] },
  },
  {
    method: 'GET', path: '/merchant/settlements', tag: 'Money', auth: 'access_token', summary: 'Settlements, newest first',
    query: { ...MODE, status: oneOf(SETTLEMENT_STATUSES), payment_id: str(), settlement: oneOf(SETTLEMENT_MODES), ...PAGE },
    responses: { 200: { description: 'a page of settlements', schema: page('settlements', ref('Settlement')) } },
    errors: { 400: [SETTLEMENT_STATUS_INVALID, SETTLEMENT_MODE_INVALID, givenOnce('payment_id')] },
  },
  { method: 'GET', path: '/merchant/settlements/:id', tag: 'Money', auth: 'access_token', summary: 'A settlement', responses: { 200: { description: 'the settlement', schema: wrap('settlement', ref('Settlement')) } }, errors: { 404: [SETTLEMENT_NOT_FOUND] } },
  { method: 'GET', path: '/merchant/payout-addresses', tag: 'Money', auth: 'access_token', summary: 'Payout addresses of a mode', query: MODE, responses: { 200: { description: 'addresses', schema: wrap('addresses', arr(ref('PayoutAddress'))) } } },
  {
    method: 'POST', path: '/merchant/payout-addresses', tag: 'Money', auth: 'access_token', summary: 'Add a payout address (password required)', query: MODE, body: PAYOUT_ADDRESS_BODY,
    responses: { 201: { description: 'the address', schema: wrap('address', ref('PayoutAddress')) } },
    errors: { 400: ['unsupported token in live mode', invalidAddressMessage('ethereum'), ONLY_XRP_TAGS, LABEL_INVALID, OWN_ADDRESS, tokenContractAddress('USDT_ERC20')], 403: [PASSWORD_INCORRECT], 429: [RATE_LIMITED] },
  },
  {
    method: 'PATCH', path: '/merchant/payout-addresses/:id', tag: 'Money', auth: 'access_token', summary: 'Change a payout address', body: PAYOUT_ADDRESS_BODY,
    description: 'A change of address or tag takes the password and makes the address active 24 hours later. A PATCH that changes nothing (the same label, address or tag, or `default: true` on the default) is answered 200 with the address as it is: nothing is written, audited or told to the team.',
    responses: { 200: { description: 'the address (unchanged when the PATCH changes nothing)', schema: wrap('address', ref('PayoutAddress')) } },
    errors: { 400: [NOTHING_TO_UPDATE, DEFAULT_ONLY_TRUE, invalidAddressMessage('ethereum'), ONLY_XRP_TAGS, LABEL_INVALID, OWN_ADDRESS, tokenContractAddress('USDT_ERC20')], 403: [PASSWORD_INCORRECT], 404: [NOT_FOUND], 429: [RATE_LIMITED] },
  },
  { method: 'DELETE', path: '/merchant/payout-addresses/:id', tag: 'Money', auth: 'access_token', summary: 'Delete a payout address', responses: { 200: { description: 'deleted', schema: message('address deleted') } }, errors: { 404: [NOT_FOUND] } },
  {
    method: 'GET', path: '/merchant/payouts', tag: 'Money', auth: 'access_token', summary: 'Payouts, newest first',
    query: { status: oneOf(PAYOUT_STATUSES), token: oneOf(TOKENS, 'the payout coin'), ...PAGE },
    responses: { 200: { description: 'a page of payouts', schema: page('payouts', ref('Payout')) } }, errors: { 400: [PAYOUT_STATUS_INVALID, PAYOUT_TOKEN_INVALID] },
  },
  {
    method: 'GET', path: '/merchant/payouts/quote', tag: 'Money', auth: 'access_token', summary: 'Network fee and minimum of a payout (nothing is held)',
    query: { address_id: str(), amount: str('optional'), from_token: str('the balance it draws on'), from_chain: str() }, responses: { 200: { description: 'the quote', schema: wrap('quote', PAYOUT_QUOTE) } },
    errors: { 400: PAYOUT_QUOTE_ERRORS, 409: [ADDRESS_NOT_ACTIVE_EXAMPLE] },
  },
  {
    method: 'POST', path: '/merchant/payouts', tag: 'Money', auth: 'access_token', summary: 'Request a payout of the balance', body: obj({ address_id: str(), amount: { anyOf: [str(), { type: 'number' }], description: 'absent or 0: the whole available balance' }, from_token: str('the balance it draws on'), from_chain: str() }, ['address_id']),
    responses: { 201: { description: 'the payout', schema: wrap('payout', ref('Payout')) } },
    errors: { 400: [...PAYOUT_QUOTE_ERRORS, MIN_PAYOUT_MESSAGE, balanceHolds('USDT_TRC20', 12_500_000n), amountBelowFee('USDT_TRC20', 1_000_000n)], 409: [ADDRESS_NOT_ACTIVE_EXAMPLE] },
  },
  { method: 'POST', path: '/merchant/payouts/:id/cancel', tag: 'Money', auth: 'access_token', summary: 'Cancel a requested payout', responses: { 200: { description: 'the payout', schema: wrap('payout', ref('Payout')) } }, errors: { 404: [NOT_FOUND] } },
  {
    method: 'GET', path: '/merchant/affiliate', tag: 'Referrals', auth: 'access_token', summary: 'Referral code, link, balance and terms',
    responses: { 200: { description: 'the program', schema: obj({
      code: str(), link: str(), rate_bps: int(), clicks: int(), referrals: obj({ active: int(), void: int() }),
      balance: obj({ token: str(), chain: str(), available: dec(), pending_payout: dec(), paid_out: dec() }, ['available']),
      payouts: obj({ min_payout_usd: dec(), payout_days: int() }, ['min_payout_usd', 'payout_days']),
    }, ['code', 'link']) } },
  },
  {
    method: 'GET', path: '/merchant/affiliate/referrals', tag: 'Referrals', auth: 'access_token', summary: 'Referred merchants, newest first', query: { status: oneOf(['active', 'void']), ...PAGE },
    responses: { 200: { description: 'a page of referrals', schema: page('referrals', ref('Referral')) } }, errors: { 400: [REFERRAL_STATUS_MESSAGE] },
  },
  { method: 'GET', path: '/merchant/affiliate/commissions', tag: 'Referrals', auth: 'access_token', summary: 'Commissions, newest first', query: PAGE, responses: { 200: { description: 'a page of commissions', schema: page('commissions', ref('Commission')) } } },
  {
    method: 'GET', path: '/merchant/affiliate/payouts', tag: 'Referrals', auth: 'access_token', summary: 'Referral payouts', query: { status: str(), ...PAGE },
    responses: { 200: { description: 'a page of payouts', schema: page('payouts', ref('ReferralPayout')) } }, errors: { 400: [REFERRAL_PAYOUT_STATUS_MESSAGE], 500: [COULD_NOT_LIST] },
  },
  {
    method: 'POST', path: '/merchant/affiliate/payouts', tag: 'Referrals', auth: 'access_token', summary: 'Request a referral payout (USDT on Tron; 1 a second per user)',
    body: obj({ amount: { anyOf: [str(), { type: 'number' }], description: 'absent or 0: all' }, address_id: str(), address: str(), password: str() }),
    responses: { 201: { description: 'the payout', schema: wrap('payout', ref('ReferralPayout')) } },
    errors: {
      400: [
        ADDRESS_OR_ID, NO_PAYOUT_TARGET, INVALID_TRON_ADDRESS, NOT_USDT_TRON, REFERRAL_UNKNOWN_PAYOUT_ADDRESS, OWN_ADDRESS, tokenContractAddress('USDT_TRC20'),
        AMOUNT_NOT_POSITIVE, TOO_MANY_DECIMALS, minPayoutMessage('50'),
        belowNetworkFee(1_000_000n), referralBalanceHolds(12_500_000n),
      ],
      403: [PASSWORD_INCORRECT], 409: [PAYOUT_OPEN, ADDRESS_NOT_ACTIVE_EXAMPLE], 429: [RATE_LIMITED], 500: [COULD_NOT_REQUEST],
    },
  },
  { method: 'GET', path: '/merchant/affiliate/payouts/:id', tag: 'Referrals', auth: 'access_token', summary: 'A referral payout', responses: { 200: { description: 'the payout', schema: wrap('payout', ref('ReferralPayout')) } }, errors: { 404: [NOT_FOUND] } },
  {
    method: 'POST', path: '/merchant/affiliate/payouts/:id/cancel', tag: 'Referrals', auth: 'access_token', summary: 'Cancel a requested referral payout',
    responses: { 200: { description: 'the payout, canceled', schema: wrap('payout', ref('ReferralPayout')) } }, errors: { 404: [NOT_FOUND], 409: [PAYOUT_STATE_CONFLICT] },
  },
  { method: 'GET', path: '/merchant/links', tag: 'Payment links', auth: 'access_token', summary: 'Payment links', query: { ...MODE, active: oneOf(['true', 'false']), ...PAGE }, responses: { 200: { description: 'a page of links', schema: page('links', LINK) } }, errors: { 400: [ACTIVE_INVALID] } },
  {
    method: 'POST', path: '/merchant/links', tag: 'Payment links', auth: 'access_token', summary: 'Create a payment link', query: MODE,
    body: obj({ name: STORE_NAME, amount_usd: { anyOf: [str(), { type: 'number' }] }, description: str(), tokens: arr(str()), success_url: str(), cancel_url: str(), store_id: str() }, ['name', 'amount_usd']),
    responses: { 201: { description: 'the link', schema: wrap('link', LINK) } }, errors: { 400: LINK_ERRORS, 403: [LIVE_LINK_OFF] },
  },
  { method: 'GET', path: '/merchant/links/:id', tag: 'Payment links', auth: 'access_token', summary: 'A payment link', responses: { 200: { description: 'the link', schema: wrap('link', LINK) } }, errors: { 404: [NOT_FOUND] } },
  {
    method: 'PATCH', path: '/merchant/links/:id', tag: 'Payment links', auth: 'access_token', summary: 'Change a payment link', body: obj({ name: STORE_NAME, description: str(), active: bool() }),
    responses: { 200: { description: 'the link', schema: wrap('link', LINK) } }, errors: { 400: LINK_PATCH_ERRORS, 404: [NOT_FOUND] },
  },
  { method: 'GET', path: '/merchant/customers', tag: 'Customers', auth: 'access_token', summary: 'Customers', query: { ...MODE, q: str('email or name contains'), ...PAGE }, responses: { 200: { description: 'a page of customers', schema: page('customers', CUSTOMER) } }, errors: { 400: [Q_INVALID] } },
  {
    method: 'POST', path: '/merchant/customers', tag: 'Customers', auth: 'access_token', summary: 'Add a customer', query: MODE, body: obj({ email: str(), name: str(), metadata: anyObject() }, ['email']),
    responses: { 201: { description: 'the customer', schema: wrap('customer', CUSTOMER) } }, errors: { 400: [EMAIL_REQUIRED, INVALID_EMAIL, ...CUSTOMER_ERRORS], 409: [CUSTOMER_EXISTS] },
  },
  { method: 'GET', path: '/merchant/customers/:id', tag: 'Customers', auth: 'access_token', summary: 'A customer with recent payments', responses: { 200: { description: 'the customer', schema: wrap('customer', CUSTOMER) } }, errors: { 404: [NOT_FOUND] } },
  {
    method: 'PATCH', path: '/merchant/customers/:id', tag: 'Customers', auth: 'access_token', summary: 'Change a customer', body: obj({ name: str(), metadata: anyObject() }),
    responses: { 200: { description: 'the customer', schema: wrap('customer', CUSTOMER) } }, errors: { 400: [NOTHING_TO_UPDATE, ...CUSTOMER_ERRORS], 404: [NOT_FOUND] },
  },
];
