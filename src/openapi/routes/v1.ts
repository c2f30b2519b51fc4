// The payments API (/v1, API key; spec 4.1).
import {
  AMOUNT_REQUIRED, CHOOSE_COIN_FIRST, COIN_ALREADY_CHOSEN, CUSTOMER_EMAIL_INVALID, FROM_AFTER_TO, FROM_NOT_A_DAY, GIVEN_ONCE_ERRORS,
  NO_LONGER_PAYABLE, NOT_AN_OPTION, ONLY_TEST, ORDER_ID_LENGTH, ORDER_ID_REQUIRED, ORDER_ID_TOO_LONG, OUTCOME_REQUIRED,
  PAYMENT_NOT_FOUND, Q_TOO_LONG, SIMULATION_OUTCOMES, SIMULATION_RUNNING, TO_NOT_A_DAY, TOKEN_NOT_IN_TOKENS, TOKEN_NOT_STRING,
  TOKEN_REQUIRED, TOKENS_NOT_ARRAY,
} from '../../payments/index.ts';
import {
  DESCRIPTION_TOO_LONG, pageUrlMessage, pageUrlTooLongMessage, parseUsdField, positiveDecimalMessage, PRICE_CURRENCY_INVALID, PRICE_CURRENCY_REQUIRED, SIMULATE_UNKNOWN,
} from '../../payments/create-input.ts';
import { noContract, noNode, notEnabled } from '../../payments/coin.ts';
import { NO_COIN_AVAILABLE } from '../../payments/create.ts';
import { noOtherAsset, notSimulatable } from '../../payments/simulation.ts';
import { CHANGED_CONCURRENTLY } from '../../payments/accounting.ts';
import { belowMinimumMessage, exchangeMinimumMessage, feesExceedPriceMessage } from '../../payments/pricing.ts';
import { dec } from '../../money/decimal.ts';
import { unsupportedToken } from '../../tokens/catalog.ts';
import { noCurrentPriceMessage } from '../../market/market-data.ts';
import { PAYMENT_URL_PREFIX } from '../../webhooks/url-policy.ts';
import type { RouteDoc } from '../describe.ts';
import { anyObject, arr, int, listLimit, obj, oneOf, ref, str, wrap, type Schema } from '../schema.ts';
import { LIST_DEFAULT } from '../../platform/list-params.ts';
import { INVALID_REQUEST_BODY } from '../../platform/errors.ts';
import { METADATA_NOT_OBJECT, METADATA_TOO_LARGE, nulMessage } from '../../platform/fields.ts';
import {
  COULD_NOT_REMOVE, COULD_NOT_SET, NO_URL_SET_FIRST, STOREFRONT_CANNOT_CHANGE, URL_DOES_NOT_RESOLVE, URL_NOT_ABSOLUTE,
  URL_NOT_HTTPS, URL_NOT_PUBLIC, URL_REQUIRED, URL_TOO_LONG,
} from '../../webhooks/index.ts';

const amount = (description: string): Schema => ({ anyOf: [str(undefined, { pattern: '^\\d+(\\.\\d{1,2})?$' }), { type: 'number', exclusiveMinimum: 0 }], description });
const URL_ERRORS = [URL_REQUIRED, URL_TOO_LONG, URL_NOT_ABSOLUTE, URL_NOT_HTTPS, URL_DOES_NOT_RESOLVE, URL_NOT_PUBLIC];

/** A live coin with no current price (CONTRACT "Live market data"): answered with Retry-After. */
export const NO_CURRENT_PRICE_EXAMPLE = noCurrentPriceMessage('BNB');

/** The refusals of a dollar amount, as the code's own parser words them (not a number, not above 0, more than 2 decimals, too large). */
export const usdFieldErrors = (name: string): string[] => ['x', '0', '0.001', '1000000000000'].map((v) => {
  try { parseUsdField(name, v); } catch (e) { return (e as Error).message; }
  throw new Error(`${name}=${v} was accepted`);
});
/** A price the coin named cannot take, as the pricing words it: also the coin choice's refusal (spec 7 "coin needs a larger payment"). */
const COIN_PRICE_ERRORS = [belowMinimumMessage('BTC', dec('5')), exchangeMinimumMessage('USDC_ERC20', dec('20')), feesExceedPriceMessage('ETH')];
/** A price the coin cannot take (spec 7: creating below the token's current min_usd), as the pricing words it. */
export const BELOW_MINIMUM_ERRORS = [...COIN_PRICE_ERRORS, NO_COIN_AVAILABLE];
/**
 * The coin choice (POST /checkout/{token}/token, POST /v1/payments/{id}/token): spec 7's refusals,
 * the price the coin cannot take included (a coin left out of token_options for it, chosen anyway).
 */
export const CHOOSE_COIN_ERRORS = [TOKEN_REQUIRED, NOT_AN_OPTION, ...COIN_PRICE_ERRORS, NO_LONGER_PAYABLE];
/** Simulate (checkout, /v1, dashboard): every 400 of spec 7, in its order; a status or coin of the moment by an example. */
export const SIMULATE_ERRORS = [OUTCOME_REQUIRED, SIMULATE_UNKNOWN, ONLY_TEST, CHOOSE_COIN_FIRST, notSimulatable('confirmed'), noOtherAsset('BTC')];
/** POST /v1/payments and POST /merchant/payments (spec 7 "Payments and checkout"; the complete list is not shown). */
export const CREATE_PAYMENT_ERRORS = [
  ORDER_ID_REQUIRED, ORDER_ID_LENGTH, AMOUNT_REQUIRED, ...usdFieldErrors('amount_usd'), TOKENS_NOT_ARRAY, TOKEN_NOT_STRING, unsupportedToken('DOGE2'),
  TOKEN_NOT_IN_TOKENS, notEnabled('XRP'), noNode('ETH'), noContract('USDT_ERC20'), ...BELOW_MINIMUM_ERRORS, METADATA_NOT_OBJECT, CUSTOMER_EMAIL_INVALID, pageUrlMessage('success_url'), pageUrlMessage('cancel_url'),
  pageUrlTooLongMessage('success_url'), pageUrlTooLongMessage('cancel_url'), ...URL_ERRORS.map((m) => `${PAYMENT_URL_PREFIX}${m}`), ONLY_TEST,
  DESCRIPTION_TOO_LONG, METADATA_TOO_LARGE, SIMULATE_UNKNOWN, positiveDecimalMessage('price_amount'), PRICE_CURRENCY_INVALID, PRICE_CURRENCY_REQUIRED,
  nulMessage('order_id'),
];

/** The dashboard's list filters beyond spec 4.4 (README "Dashboard additions"), on /v1 and /merchant alike. */
export const PAYMENT_SEARCH = {
  order_id: str('exact order id'), q: str('contained, any case, in the order id, payment id, customer email or deposit address (up to 200 characters)'),
  from: str('first UTC day of created_at, YYYY-MM-DD'), to: str('last UTC day of created_at, YYYY-MM-DD'),
};
export const PAYMENT_SEARCH_ERRORS = [FROM_NOT_A_DAY, TO_NOT_A_DAY, FROM_AFTER_TO, Q_TOO_LONG, ORDER_ID_TOO_LONG, ...GIVEN_ONCE_ERRORS];

export const CREATE_PAYMENT_BODY = obj({
  order_id: str('merchant\'s order reference; a repeated open order_id answers 200 with that payment', { minLength: 1, maxLength: 200 }),
  amount_usd: amount('price in dollars, up to 2 decimals'),
  token: str('the coin; omit to let the customer choose (one hour to choose)'),
  tokens: arr(str(), 'coins offered to the customer (token must be one of them)'),
  description: str(undefined, { maxLength: 1000 }),
  metadata: anyObject('your data, at most 8192 bytes of JSON; private'),
  customer_email: str(undefined, { maxLength: 254 }),
  success_url: str('absolute http(s) URL', { maxLength: 2048 }),
  cancel_url: str('absolute http(s) URL', { maxLength: 2048 }),
  webhook_url: str('https URL on a public host: this payment\'s events go there instead of the account URL'),
  price_amount: str('display price in another currency'), price_currency: str(), price_rate: str(),
  simulate: oneOf(SIMULATION_OUTCOMES, 'test keys only: run this outcome at once'),
}, ['order_id', 'amount_usd']);

const paymentExample = {
  id: 'pay_3f2a9c', merchant_id: 'mer_81b2', order_id: 'order-1042', status: 'pending', deposit_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  token: 'ETH', chain: 'ethereum', livemode: false, crypto_amount: '0.00875667', received_amount: '0', usd_amount: '25', amount_due_usd: '26.27',
  received_usd: '0', fees_paid_by_customer: true, network_fee: '0.00033334', network_fee_usd: '1', settlement: 'direct', rate_locked: '3000',
  deposits: [], expires_at: '2026-01-05T12:15:00.000Z', created_at: '2026-01-05T12:00:00.000Z', qr_payload: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  checkout_token: 'c2f7d1…', checkout_url: 'https://pay.example.com/pay/c2f7d1…',
};

export const V1_ROUTES: RouteDoc[] = [
  {
    method: 'GET', path: '/v1/tokens', tag: 'Payments', auth: 'api_key', summary: 'Coins this key\'s merchant accepts, with minimums and fees',
    query: { amount_usd: str('only coins whose minimum is at most this amount') },
    responses: { 200: { description: 'the coins', schema: wrap('tokens', arr(ref('TokenInfo'))) } },
    errors: { 400: usdFieldErrors('amount_usd') },
  },
  {
    method: 'POST', path: '/v1/payments', tag: 'Payments', auth: 'api_key', summary: 'Create a payment',
    description: 'A test key creates a test payment (simulated chain), a live key a live one. No event is sent at creation.',
    body: CREATE_PAYMENT_BODY, bodyExample: { order_id: 'order-1042', amount_usd: '25.00', token: 'ETH' },
    responses: {
      201: { description: 'the new payment', schema: ref('Payment'), example: paymentExample },
      200: { description: 'the open payment already created for this order_id', schema: ref('Payment') },
    },
    errors: { 400: CREATE_PAYMENT_ERRORS, 503: [NO_CURRENT_PRICE_EXAMPLE] },
  },
  {
    method: 'GET', path: '/v1/payments', tag: 'Payments', auth: 'api_key', summary: 'List payments, newest first',
    query: {
      status: str('a payment status'), token: str(), chain: str(), store_id: str('ignored for a storefront key'),
      ...PAYMENT_SEARCH,
      limit: listLimit(LIST_DEFAULT), offset: int('default 0'),
    },
    responses: { 200: { description: 'a page of payments', schema: obj({ payments: arr(ref('Payment')), total: int(), limit: int(), offset: int() }, ['payments', 'limit', 'offset']) } },
    errors: { 400: PAYMENT_SEARCH_ERRORS },
  },
  {
    method: 'GET', path: '/v1/payments/:id', tag: 'Payments', auth: 'api_key', summary: 'Read a payment',
    responses: { 200: { description: 'the payment', schema: ref('Payment') } },
    errors: { 404: [PAYMENT_NOT_FOUND] },
  },
  {
    method: 'POST', path: '/v1/payments/:id/token', tag: 'Payments', auth: 'api_key', summary: 'Choose the coin of a payment created without one',
    body: obj({ token: str('one of the payment\'s token_options') }, ['token']),
    responses: { 200: { description: 'the payment with its coin, address, locked rate and a deadline 15 minutes ahead', schema: ref('Payment') } },
    errors: { 400: CHOOSE_COIN_ERRORS, 404: [PAYMENT_NOT_FOUND], 409: [COIN_ALREADY_CHOSEN], 503: [NO_CURRENT_PRICE_EXAMPLE] },
  },
  {
    method: 'POST', path: '/v1/payments/:id/simulate', tag: 'Payments', auth: 'api_key', summary: 'Simulate an outcome on a test payment',
    body: obj({ outcome: oneOf(SIMULATION_OUTCOMES) }, ['outcome']), bodyExample: { outcome: 'confirmed' },
    responses: { 200: { description: 'the payment with simulation {outcome, state: running}', schema: ref('Payment') } },
    errors: {
      400: SIMULATE_ERRORS,
      404: [PAYMENT_NOT_FOUND], 409: [SIMULATION_RUNNING, CHANGED_CONCURRENTLY],
    },
  },
  {
    method: 'GET', path: '/v1/webhook', tag: 'Webhook', auth: 'api_key', summary: 'The webhook of this key\'s mode (its secret is created on first read)',
    responses: { 200: { description: 'the webhook', schema: wrap('webhook', ref('Webhook')) } },
  },
  {
    method: 'PUT', path: '/v1/webhook', tag: 'Webhook', auth: 'api_key', summary: 'Set the webhook URL of this key\'s mode',
    body: obj({ url: str('absolute https URL on a public host') }, ['url']), bodyExample: { url: 'https://shop.example.com/hooks/gateway' },
    responses: { 200: { description: 'the webhook', schema: wrap('webhook', ref('Webhook')) } },
    errors: { 400: [...URL_ERRORS, INVALID_REQUEST_BODY], 403: [STOREFRONT_CANNOT_CHANGE], 500: [COULD_NOT_SET] },
  },
  {
    method: 'DELETE', path: '/v1/webhook', tag: 'Webhook', auth: 'api_key', summary: 'Remove the webhook URL (the secret is kept)',
    responses: { 200: { description: 'the webhook with url null', schema: wrap('webhook', ref('Webhook')) } },
    errors: { 403: [STOREFRONT_CANNOT_CHANGE], 500: [COULD_NOT_REMOVE] },
  },
  {
    method: 'POST', path: '/v1/webhook/test', tag: 'Webhook', auth: 'api_key', summary: 'Queue a ping to the webhook URL (sent within about 5 seconds)',
    responses: { 202: { description: 'the queued delivery', schema: wrap('delivery', ref('Delivery')) } },
    errors: { 400: [NO_URL_SET_FIRST] },
  },
];

export { URL_ERRORS };
