// Bodies of the payment link routes. A link is a template of a payment: its amount, coins,
// description and pages are checked by the payments room's own rules (the same messages as
// POST /v1/payments), so a link never holds what a payment would refuse.
import { badRequest, NOTHING_TO_UPDATE } from '../platform/errors.ts';
import { isIdShaped, optionalText, present, refuseNul } from '../platform/fields.ts';
import { parseCreateInput } from '../payments/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { requireStoreName, STORE_NAME_INVALID, UNKNOWN_STORE } from '../accounts/index.ts';

/** A link's name follows a store's rule and message: 1 to 100 characters. */
export const NAME_INVALID = STORE_NAME_INVALID;
export const ACTIVE_INVALID = 'active must be true or false';
export const MAX_DESCRIPTION = 1000;

export interface NewLink {
  name: string;
  amountUsd: string;
  description: string | null;
  tokens: TokenSymbol[] | null;
  successUrl: string | null;
  cancelUrl: string | null;
  storeId: string | null;
}

export interface LinkPatch {
  name?: string;
  description?: string | null;
  active?: boolean;
}

function requireName(v: unknown): string {
  const name = requireStoreName(v);
  refuseNul('name', name);
  return name;
}

export function parseNewLink(body: Record<string, unknown>): NewLink {
  const name = requireName(body.name);
  const template = parseCreateInput({
    order_id: 'link', amount_usd: body.amount_usd, tokens: body.tokens, description: body.description,
    success_url: body.success_url, cancel_url: body.cancel_url,
  });
  const storeId = present(body.store_id) ? body.store_id : null;
  // An id of no possible store (not a short URL-safe word) names none, and never reaches SQL.
  if (storeId !== null && !isIdShaped(storeId)) throw badRequest(UNKNOWN_STORE);
  return {
    name,
    amountUsd: template.usdAmount.toFixed(),
    // As PATCH takes it (parseLinkPatch): trimmed, and an empty or blank one is none, so the link
    // shows no `description: ""` and its payments fall back to the link's name.
    description: template.description?.trim() || null,
    tokens: template.tokens ?? null,
    successUrl: template.successUrl ?? null,
    cancelUrl: template.cancelUrl ?? null,
    storeId: storeId as string | null,
  };
}

/** `name`, `description` (null removes it), `active`; none of them: 400 `nothing to update`. */
export function parseLinkPatch(body: Record<string, unknown>): LinkPatch {
  const out: LinkPatch = {};
  if (Object.hasOwn(body, 'name')) out.name = requireName(body.name);
  if (Object.hasOwn(body, 'description')) out.description = optionalText('description', body.description, MAX_DESCRIPTION) || null;
  if (Object.hasOwn(body, 'active')) {
    if (typeof body.active !== 'boolean') throw badRequest(ACTIVE_INVALID);
    out.active = body.active;
  }
  if (Object.keys(out).length === 0) throw badRequest(NOTHING_TO_UPDATE);
  return out;
}

/** `active` of the list query: `true` or `false`; absent: both. */
export function activeFilter(v: unknown): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  if (v === 'true' || v === 'false') return v === 'true';
  throw badRequest(ACTIVE_INVALID);
}
