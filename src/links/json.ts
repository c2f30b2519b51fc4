// The payment link object of CONTRACT.md "Payment links", and its socket event.
import type { Executor } from '../platform/db/index.ts';
import { appendEvent, type NewEvent } from '../events/index.ts';
import { formatUsd, formatUsd2 } from '../money/index.ts';
import type { LinkRow } from './schema.ts';

export const LINK_UPDATE = 'link:update';

/** `{checkout_base}/l/<slug>`: the hosted page that makes a payment; absent when no page is served. */
export const linkUrl = (checkoutBase: string | null, slug: string): string | undefined => (checkoutBase !== null ? `${checkoutBase}/l/${slug}` : undefined);

export function linkJson(l: LinkRow, checkoutBase: string | null): Record<string, unknown> {
  const url = linkUrl(checkoutBase, l.slug);
  return {
    id: l.id,
    merchant_id: l.merchantId,
    livemode: l.livemode,
    ...(l.storeId !== null ? { store_id: l.storeId } : {}),
    name: l.name,
    amount_usd: formatUsd(l.amountUsd),
    ...(l.description !== null ? { description: l.description } : {}),
    ...(l.tokens !== null ? { tokens: l.tokens } : {}),
    ...(l.successUrl !== null ? { success_url: l.successUrl } : {}),
    ...(l.cancelUrl !== null ? { cancel_url: l.cancelUrl } : {}),
    active: l.active,
    ...(url !== undefined ? { url } : {}),
    payments: Number(l.payments),
    volume_usd: formatUsd2(l.volumeUsd),
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
  };
}

/** `link:update` (spec 6.3), on every change of the link or its counts. */
export const linkUpdateEvent = (l: LinkRow, checkoutBase: string | null, at: Date): NewEvent =>
  ({ type: LINK_UPDATE, livemode: l.livemode, merchantId: l.merchantId, data: linkJson(l, checkoutBase), at });

/** `link:update` in the caller's transaction. */
export const emitLinkUpdate = (tx: Executor, l: LinkRow, checkoutBase: string | null, at: Date) => appendEvent(tx, linkUpdateEvent(l, checkoutBase, at));
