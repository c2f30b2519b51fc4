// Bodies and queries of the customers routes, one 400 message per mistake.
import { badRequest, NOTHING_TO_UPDATE } from '../platform/errors.ts';
import { longerThan, optionalMetadata, optionalText, refuseNul } from '../platform/fields.ts';
import { requireEmail } from '../accounts/index.ts';

export const EMAIL_REQUIRED = 'email is required';
export const CUSTOMER_EXISTS = 'customer already exists';
export const MAX_NAME = 200;
export const MAX_QUERY = 200;
export const Q_INVALID = `q must be a string of at most ${MAX_QUERY} characters`;

export interface NewCustomer {
  email: string;
  name?: string | null;
  metadata?: Record<string, unknown> | null;
}

export interface CustomerPatch {
  name?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** The lower-cased email of a customer: one customer per merchant, mode and email, any case. */
export function customerEmail(v: unknown): string {
  if (v === undefined || v === null || v === '') throw badRequest(EMAIL_REQUIRED);
  refuseNul('email', v);
  return requireEmail(v);
}

export function parseNewCustomer(body: Record<string, unknown>): NewCustomer {
  return { email: customerEmail(body.email), name: optionalText('name', body.name, MAX_NAME) || null, metadata: optionalMetadata(body.metadata) ?? null };
}

/** `name` and `metadata`; null removes one; neither: 400 `nothing to update`. */
export function parseCustomerPatch(body: Record<string, unknown>): CustomerPatch {
  const out: CustomerPatch = {};
  if (Object.hasOwn(body, 'name')) out.name = optionalText('name', body.name, MAX_NAME) || null;
  if (Object.hasOwn(body, 'metadata')) out.metadata = optionalMetadata(body.metadata) ?? null;
  if (Object.keys(out).length === 0) throw badRequest(NOTHING_TO_UPDATE);
  return out;
}

/** `q` of the list: text the email or the name contains (any case); absent or empty: no filter. */
export function searchText(v: unknown): string | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || longerThan(v, MAX_QUERY)) throw badRequest(Q_INVALID);
  refuseNul('q', v);
  return v.trim() || undefined;
}
