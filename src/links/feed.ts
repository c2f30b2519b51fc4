// A link's `payments` and `volume_usd` (CONTRACT.md "Payment links"): the payments room's group feed.
// A payment belongs to the link named by its metadata.link_id when its order id is one the link
// gave out (link_<id>_<n>) in the link's own merchant and mode; each change raises `link:update`.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { GroupFeed, GroupMember } from '../payments/index.ts';
import { paymentLinks } from './schema.ts';
import { emitLinkUpdate } from './json.ts';
import { linkOrderPrefix } from './service.ts';

export function linkFeed(checkoutBase: () => string | null): GroupFeed {
  return {
    name: 'links',

    async membersOf(tx, payments) {
      const ofLinks = payments.filter((p) => p.linkId !== null && p.orderId.startsWith(linkOrderPrefix(p.linkId)));
      if (ofLinks.length === 0) return [];
      const links = await tx.select({ id: paymentLinks.id, merchantId: paymentLinks.merchantId, livemode: paymentLinks.livemode })
        .from(paymentLinks).where(inArray(paymentLinks.id, [...new Set(ofLinks.map((p) => p.linkId!))]));
      const byId = new Map(links.map((l) => [l.id, l]));
      const members: GroupMember[] = [];
      for (const p of ofLinks) {
        const l = byId.get(p.linkId!);
        if (l && l.merchantId === p.merchantId && l.livemode === p.livemode) members.push({ groupId: l.id, payment: p });
      }
      return members;
    },

    async apply(tx, changes, now) {
      for (const c of changes) {
        const [row] = await tx.update(paymentLinks).set({
          payments: sql`${paymentLinks.payments} + ${c.added}`,
          volumeUsd: sql`${paymentLinks.volumeUsd} + ${c.confirmedUsd.toFixed()}::numeric`,
        }).where(and(eq(paymentLinks.id, c.groupId))).returning();
        if (row) await emitLinkUpdate(tx, row, checkoutBase(), now);
      }
    },
  };
}
