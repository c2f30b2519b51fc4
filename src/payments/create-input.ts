// The body of POST /v1/payments (spec 4.1; CONTRACT.md amount and order_id rules), checked field by
// field with one clear 400 message each. Unknown fields are ignored. Pure: the webhook_url's DNS
// check and everything that needs the merchant happen in the service.
import { badRequest } from '../platform/errors.ts';
import { longerThan, METADATA_NOT_OBJECT, METADATA_TOO_LARGE, nulMessage, textMessage } from '../platform/fields.ts';
import { amountText, dec, parseAmountUsd, type Decimal } from '../money/index.ts';
import { isToken, unsupportedToken, type TokenSymbol } from '../tokens/index.ts';
import { URL_NOT_ABSOLUTE, URL_TOO_LONG, urlTooLong } from '../webhooks/core.ts';
import { SIMULATION_OUTCOMES, type SimulationOutcome } from './simulation-outcomes.ts';

export { SIMULATION_OUTCOMES, type SimulationOutcome };
export const isOutcome = (v: unknown): v is SimulationOutcome => (SIMULATION_OUTCOMES as readonly unknown[]).includes(v);

export const ORDER_ID_REQUIRED = 'order_id is required';
export const ORDER_ID_LENGTH = 'order_id must be 1 to 200 characters';
export const AMOUNT_REQUIRED = 'amount_usd is required';
export const TOKENS_NOT_ARRAY = 'tokens must be an array of token symbols';
export const TOKEN_NOT_STRING = 'token must be a token symbol';
export const TOKEN_NOT_IN_TOKENS = 'token must be one of tokens';
export const CUSTOMER_EMAIL_INVALID = 'customer_email must be an email address';
export const SIMULATE_UNKNOWN = `simulate must be one of: ${SIMULATION_OUTCOMES.join(', ')}`;
export const OUTCOME_UNKNOWN = SIMULATE_UNKNOWN;
export { unsupportedToken } from '../tokens/index.ts';
export const MAX_AMOUNT_USD = '1000000000';
// Messages of the optional fields, exported so GET /openapi.json lists them as they are worded here.
export const PRICE_CURRENCY_INVALID = 'price_currency must be a 3-letter currency code';
export const PRICE_CURRENCY_REQUIRED = 'price_currency is required with price_amount';
export const positiveDecimalMessage = (name: string): string => `${name} must be a positive decimal number`;
const MAX_ORDER_ID = 200;
const MAX_TEXT = 1000;
export const DESCRIPTION_TOO_LONG = textMessage('description', MAX_TEXT);
const MAX_METADATA_BYTES = 8192;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CreateInput {
  orderId: string;
  usdAmount: Decimal;
  token?: TokenSymbol;
  tokens?: TokenSymbol[];
  description?: string;
  metadata?: Record<string, unknown>;
  customerEmail?: string;
  successUrl?: string;
  cancelUrl?: string;
  /** Checked by the service (DNS, public host). */
  webhookUrl?: unknown;
  priceAmount?: string;
  priceCurrency?: string;
  priceRate?: string;
  simulate?: SimulationOutcome;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** amount_usd by the contract's rules: `amount_usd is required` / `amount_usd must be …`. */
export function parseUsdField(name: string, v: unknown): Decimal {
  if (!present(v) || v === '') throw badRequest(`${name} is required`);
  const r = parseAmountUsd(v, MAX_AMOUNT_USD);
  if (!r.ok) throw badRequest(`${name} ${r.reason}`);
  return r.value;
}

function tokenSymbol(v: unknown): TokenSymbol {
  if (typeof v !== 'string' || v === '') throw badRequest(TOKEN_NOT_STRING);
  if (!isToken(v)) throw badRequest(unsupportedToken(v.slice(0, 40)));
  return v;
}

function text(name: string, v: unknown, max = MAX_TEXT): string | undefined {
  if (!present(v)) return undefined;
  if (typeof v !== 'string' || longerThan(v, max)) throw badRequest(textMessage(name, max));
  return v;
}

/**
 * `success_url: url must be an absolute http(s) URL` (and cancel_url): spec 7 gives a payment's own
 * URLs the webhook URL errors with the field's prefix, as webhook_url and the too-long answer carry it.
 */
export const pageUrlMessage = (name: string): string => `${name}: ${URL_NOT_ABSOLUTE}`;
/** A payment's own URL over the length every URL is held to (URL_MAX_CHARS). */
export const pageUrlTooLongMessage = (name: string): string => `${name}: ${URL_TOO_LONG}`;

function pageUrl(name: string, v: unknown): string | undefined {
  if (!present(v)) return undefined;
  const bad = badRequest(pageUrlMessage(name));
  if (typeof v !== 'string') throw bad;
  if (urlTooLong(v)) throw badRequest(pageUrlTooLongMessage(name));
  let u: URL;
  try { u = new URL(v); } catch { throw bad; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw bad;
  return v;
}

function positiveDecimal(name: string, v: unknown): string | undefined {
  if (!present(v)) return undefined;
  const bad = badRequest(positiveDecimalMessage(name));
  const s = amountText(v);
  if (s === null || !/^\d{1,18}(\.\d{1,18})?$/.test(s) || dec(s).lte(0)) throw bad;
  return dec(s).toFixed();
}

/** PostgreSQL text and jsonb cannot hold the NUL character. */
function refuseNul(body: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(body)) {
    const text = typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : '';
    if (text.includes('\u0000') || text.includes('\\u0000')) throw badRequest(nulMessage(k.slice(0, 40)));
  }
}

export function parseCreateInput(body: Record<string, unknown>): CreateInput {
  refuseNul(body);
  const o = body.order_id;
  if (!present(o) || o === '') throw badRequest(ORDER_ID_REQUIRED);
  if (typeof o !== 'string' || longerThan(o, MAX_ORDER_ID)) throw badRequest(ORDER_ID_LENGTH);
  const usdAmount = parseUsdField('amount_usd', body.amount_usd);

  const token = present(body.token) && body.token !== '' ? tokenSymbol(body.token) : undefined;
  let tokens: TokenSymbol[] | undefined;
  if (present(body.tokens)) {
    if (!Array.isArray(body.tokens) || body.tokens.length === 0 || body.tokens.some((t) => typeof t !== 'string')) throw badRequest(TOKENS_NOT_ARRAY);
    tokens = [...new Set((body.tokens as string[]).map((t) => {
      if (!isToken(t)) throw badRequest(unsupportedToken(t.slice(0, 40)));
      return t;
    }))];
    if (token && !tokens.includes(token)) throw badRequest(TOKEN_NOT_IN_TOKENS);
  }

  let metadata: Record<string, unknown> | undefined;
  if (present(body.metadata)) {
    if (typeof body.metadata !== 'object' || Array.isArray(body.metadata)) throw badRequest(METADATA_NOT_OBJECT);
    if (JSON.stringify(body.metadata).length > MAX_METADATA_BYTES) throw badRequest(METADATA_TOO_LARGE);
    metadata = body.metadata as Record<string, unknown>;
  }
  let customerEmail: string | undefined;
  if (present(body.customer_email)) {
    const e = body.customer_email;
    if (typeof e !== 'string' || e.length > 254 || !EMAIL.test(e.trim())) throw badRequest(CUSTOMER_EMAIL_INVALID);
    customerEmail = e.trim();
  }
  let priceCurrency: string | undefined;
  if (present(body.price_currency)) {
    const c = body.price_currency;
    if (typeof c !== 'string' || !/^[A-Za-z]{3}$/.test(c)) throw badRequest(PRICE_CURRENCY_INVALID);
    priceCurrency = c.toUpperCase();
  }
  const priceAmount = positiveDecimal('price_amount', body.price_amount);
  if (priceAmount !== undefined && priceCurrency === undefined) throw badRequest(PRICE_CURRENCY_REQUIRED);
  let simulate: SimulationOutcome | undefined;
  if (present(body.simulate)) {
    if (!isOutcome(body.simulate)) throw badRequest(SIMULATE_UNKNOWN);
    simulate = body.simulate;
  }
  return {
    orderId: o, usdAmount, token, tokens, metadata, customerEmail, simulate,
    description: text('description', body.description),
    successUrl: pageUrl('success_url', body.success_url),
    cancelUrl: pageUrl('cancel_url', body.cancel_url),
    webhookUrl: body.webhook_url,
    priceAmount, priceCurrency,
    priceRate: positiveDecimal('price_rate', body.price_rate),
  };
}
