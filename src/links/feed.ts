// A link's `payments` and `volume_usd` (CONTRACT.md "Payment links"): the payments room's group feed.
// A payment belongs to the link named by its metadata.link_id when its order id is one the link
// gave out (link_<id>_<n>) in the link's own merchant and mode; each change raises `link:update`.
// A fixed number of statements per batch, in the outbox's dispatch transaction.
import { inArray, sql } from 'drizzle-orm';
import { queryRows } from '../platform/db/index.ts';
import { appendEvents } from '../events/index.ts';
import { changesJson, GROUP_CHANGE_COLUMNS, type GroupFeed, type GroupMember } from '../payments/index.ts';
import { paymentLinks } from './schema.ts';
import { linkUpdateEvent } from './json.ts';
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
      const changed = await queryRows<{ id: string }>(tx, sql`
        update payment_links l set payments = l.payments + v.added, volume_usd = l.volume_usd + v.confirmed_usd
        from jsonb_to_recordset(${changesJson(changes)}::jsonb) as v(${sql.raw(GROUP_CHANGE_COLUMNS)})
        where l.id = v.group_id
        returning l.id`);
      if (changed.length === 0) return;
      const rows = await tx.select().from(paymentLinks).where(inArray(paymentLinks.id, changed.map((r) => r.id)));
      await appendEvents(tx, rows.map((r) => linkUpdateEvent(r, checkoutBase(), now)));
    },
  };
}
