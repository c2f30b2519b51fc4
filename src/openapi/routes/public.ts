// Routes with no credential: the payer's checkout (spec 4.2), public coin list, payment links'
// customer side and referral clicks (CONTRACT "Payment links", "Referral program").
import { SIMULATION_OUTCOMES } from '../../payments/index.ts';
import type { RouteDoc } from '../describe.ts';
import { arr, obj, oneOf, ref, str, wrap } from '../schema.ts';

const PAYER_VIEW = 'the payer\'s view of the payment (no merchant_id, metadata, customer_email, webhook_url, checkout_token, checkout_url)';

export const PUBLIC_ROUTES: RouteDoc[] = [
  {
    method: 'GET', path: '/checkout/:checkoutToken', tag: 'Checkout', auth: 'none', summary: 'The payer\'s view of a payment',
    responses: { 200: { description: PAYER_VIEW, schema: ref('Payment') } }, errors: { 404: ['payment not found'] },
  },
  {
    method: 'POST', path: '/checkout/:checkoutToken/token', tag: 'Checkout', auth: 'none', summary: 'Choose the coin (5 a second per IP address)',
    body: obj({ token: str('one of token_options[].token') }, ['token']), bodyExample: { token: 'USDT_TRC20' },
    responses: { 200: { description: `${PAYER_VIEW}, with coin, address, locked rate and a deadline 15 minutes ahead`, schema: ref('Payment') } },
    errors: { 400: ['token is required', 'token is not one of this payment\'s options', 'this payment can no longer be paid'], 404: ['payment not found'], 409: ['the coin for this payment has already been chosen'], 429: ['rate limit exceeded'] },
  },
  {
    method: 'POST', path: '/checkout/:checkoutToken/simulate', tag: 'Checkout', auth: 'none', summary: 'Simulate an outcome on a test payment (5 a second per IP address)',
    body: obj({ outcome: oneOf(SIMULATION_OUTCOMES) }, ['outcome']),
    responses: { 200: { description: `${PAYER_VIEW}, with simulation running`, schema: ref('Payment') } },
    errors: { 400: ['outcome is required', 'only test payments can be simulated: use a test key'], 404: ['payment not found'], 409: ['a simulation is already running for this payment'], 429: ['rate limit exceeded'] },
  },
  {
    method: 'GET', path: '/checkout/:token/qr.svg', tag: 'Checkout', auth: 'none', summary: 'QR code of the deposit address',
    responses: { 200: { description: 'an SVG image of qr_payload', contentType: 'image/svg+xml', schema: str() } },
    errors: { 404: ['payment not found'] },
  },
  {
    method: 'GET', path: '/tokens', tag: 'Checkout', auth: 'none', summary: 'Every coin with its minimum and fees for a default account',
    query: { mode: oneOf(['test'], 'test lists the test coins; anything else, or nothing, live') },
    responses: { 200: { description: 'the coins', schema: wrap('tokens', arr(ref('TokenInfo'))) } },
  },
  {
    method: 'POST', path: '/l/:slug/payments', tag: 'Payment links', auth: 'none', summary: 'A new payment of a payment link (5 a second per IP address)',
    body: obj({ customer_email: str() }),
    responses: { 201: { description: `${PAYER_VIEW} plus checkout_url`, schema: ref('Payment') } },
    errors: { 400: ['customer_email must be an email address'], 404: ['not found'], 429: ['rate limit exceeded'] },
  },
  {
    method: 'GET', path: '/l/:slug', tag: 'Payment links', auth: 'none', summary: 'The hosted link page: makes the payment and redirects to its checkout',
    description: 'Served only when a checkout page is (CHECKOUT_URL not empty).',
    responses: { 303: { description: 'redirect to the new payment\'s checkout page' } }, errors: { 404: ['not found'], 429: ['rate limit exceeded'] },
  },
  {
    method: 'POST', path: '/referrals/:code/click', tag: 'Referrals', auth: 'none', summary: 'Count a click on a referral link (5 a second per IP address)',
    responses: { 204: { description: 'counted' } }, errors: { 404: ['not found'], 429: ['rate limit exceeded'] },
  },
];
