// Routes with no credential: the payer's checkout (spec 4.2), public coin list, payment links'
// customer side and referral clicks (CONTRACT "Payment links", "Referral program").
import {
  CHOOSE_COIN_FIRST, COIN_ALREADY_CHOSEN, CUSTOMER_EMAIL_INVALID, PAYMENT_NOT_FOUND, SIMULATION_OUTCOMES, SIMULATION_RUNNING,
} from '../../payments/index.ts';
import type { RouteDoc } from '../describe.ts';
import { LINK_NOT_TAKING_PAYMENTS, LINK_NUMBERS_TAKEN } from '../../links/index.ts';
import { BELOW_MINIMUM_ERRORS, CHOOSE_COIN_ERRORS, NO_CURRENT_PRICE_EXAMPLE, SIMULATE_ERRORS } from './v1.ts';
import { CHANGED_CONCURRENTLY } from '../../payments/accounting.ts';
import { arr, obj, oneOf, ref, str, wrap } from '../schema.ts';
import { NOT_FOUND, RATE_LIMITED } from '../../platform/errors.ts';

const PAYER_VIEW = 'the payer\'s view of the payment (no merchant_id, metadata, customer_email, webhook_url, checkout_token, checkout_url)';

export const PUBLIC_ROUTES: RouteDoc[] = [
  {
    method: 'GET', path: '/checkout/:checkoutToken', tag: 'Checkout', auth: 'none', summary: 'The payer\'s view of a payment',
    responses: { 200: { description: PAYER_VIEW, schema: ref('Payment') } }, errors: { 404: [PAYMENT_NOT_FOUND] },
  },
  {
    method: 'POST', path: '/checkout/:checkoutToken/token', tag: 'Checkout', auth: 'none', summary: 'Choose the coin (5 a second per IP address)',
    body: obj({ token: str('one of token_options[].token') }, ['token']), bodyExample: { token: 'USDT_TRC20' },
    responses: { 200: { description: `${PAYER_VIEW}, with coin, address, locked rate and a deadline 15 minutes ahead`, schema: ref('Payment') } },
    errors: { 400: CHOOSE_COIN_ERRORS, 404: [PAYMENT_NOT_FOUND], 409: [COIN_ALREADY_CHOSEN], 429: [RATE_LIMITED], 503: [NO_CURRENT_PRICE_EXAMPLE] },
  },
  {
    method: 'POST', path: '/checkout/:checkoutToken/simulate', tag: 'Checkout', auth: 'none', summary: 'Simulate an outcome on a test payment (5 a second per IP address)',
    body: obj({ outcome: oneOf(SIMULATION_OUTCOMES) }, ['outcome']),
    responses: { 200: { description: `${PAYER_VIEW}, with simulation running`, schema: ref('Payment') } },
    errors: { 400: SIMULATE_ERRORS, 404: [PAYMENT_NOT_FOUND], 409: [SIMULATION_RUNNING, CHANGED_CONCURRENTLY], 429: [RATE_LIMITED] },
  },
  {
    method: 'GET', path: '/checkout/:token/qr.svg', tag: 'Checkout', auth: 'none', summary: 'QR code of the deposit address',
    responses: { 200: { description: 'an SVG image of qr_payload', contentType: 'image/svg+xml', schema: str() } },
    errors: { 404: [PAYMENT_NOT_FOUND, CHOOSE_COIN_FIRST] },
  },
  {
    method: 'GET', path: '/tokens', tag: 'Checkout', auth: 'none', summary: 'Every coin with its minimum and fees for a default account',
    query: { mode: oneOf(['test'], 'test lists the test coins; anything else, or nothing, live') },
    responses: { 200: { description: 'the coins', schema: wrap('tokens', arr(ref('TokenInfo'))) } },
    // no merchant: the default account's coins, priced from the market data in memory
    database: false,
  },
  {
    method: 'POST', path: '/l/:slug/payments', tag: 'Payment links', auth: 'none', summary: 'A new payment of a payment link (5 a second per IP address)',
    body: obj({ customer_email: str() }),
    responses: { 201: { description: `${PAYER_VIEW} plus checkout_url`, schema: ref('Payment') } },
    errors: { 400: [CUSTOMER_EMAIL_INVALID, ...BELOW_MINIMUM_ERRORS], 403: [LINK_NOT_TAKING_PAYMENTS], 404: [NOT_FOUND], 409: [LINK_NUMBERS_TAKEN], 429: [RATE_LIMITED], 503: [NO_CURRENT_PRICE_EXAMPLE] },
  },
  {
    method: 'GET', path: '/l/:slug', tag: 'Payment links', auth: 'none', summary: 'The hosted link page: makes the payment and redirects to its checkout',
    description: 'Served only when a checkout page is (CHECKOUT_URL not empty). A refusal below 500 comes as an HTML page with its status and message when the request accepts text/html (a browser), else as the JSON below.',
    // The page makes the payment POST /l/{slug}/payments makes, so it answers that route's refusals
    // (but those of a body: it takes none).
    responses: { 303: { description: 'redirect to the new payment\'s checkout page' } },
    errors: { 400: [...BELOW_MINIMUM_ERRORS], 403: [LINK_NOT_TAKING_PAYMENTS], 404: [NOT_FOUND], 409: [LINK_NUMBERS_TAKEN], 429: [RATE_LIMITED], 503: [NO_CURRENT_PRICE_EXAMPLE] },
  },
  {
    method: 'POST', path: '/referrals/:code/click', tag: 'Referrals', auth: 'none', summary: 'Count a click on a referral link (5 a second per IP address)',
    responses: { 204: { description: 'counted' } }, errors: { 404: [NOT_FOUND], 429: [RATE_LIMITED] },
  },
];
