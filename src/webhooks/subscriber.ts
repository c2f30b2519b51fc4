// The outbox subscriber that turns webhook events into deliveries (spec 6.1 Routing). It runs in the
// dispatch transaction, so a delivery commits with the event's dispatch mark; unique (event_id,
// target) makes a batch handed over twice queue each delivery once. After the commit it wakes the
// worker so attempt 1 starts at once rather than at the next poll.
import type { Subscriber, StoredEvent } from '../events/index.ts';
import type { Tx } from '../platform/db/index.ts';
import { webhookBody } from './core.ts';
import { insertDeliveries, type NewDelivery } from './delivery-store.ts';
import type { WebhookEndpoints } from './endpoints.ts';
import { routeEvent } from './routing.ts';
import { secretContext } from './secret-box.ts';

export function deliverySubscriber(endpoints: WebhookEndpoints, wake: () => void): Subscriber {
  let queued = false;
  return {
    name: 'webhook-deliveries',
    // Only an event that may become a delivery is read whole (its data is the delivery's payload).
    wants: (e) => routeEvent(e) !== null,
    async handle(tx: Tx, batch: StoredEvent[]): Promise<void> {
      const routed = batch.flatMap((e) => {
        const route = routeEvent(e);
        return route ? [{ e, route }] : [];
      });
      if (routed.length === 0) return;
      const accounts = await endpoints.current(tx, routed.map(({ e }) => ({ merchantId: e.merchantId!, livemode: true })));
      const items: NewDelivery[] = [];
      for (const { e, route } of routed) {
        // An account URL counts only when it is set at this moment, and only for events raised since
        // the mode got it (url_since_seq, set with the URL: endpoints.ts setUrl): nothing raised while
        // the mode had no URL is replayed to one set before a late dispatch.
        let url: string | null | undefined;
        if (route.target === 'payment') url = route.url;
        else {
          const account = accounts.get(secretContext(e.merchantId!, route.livemode));
          url = account && (account.urlSinceSeq === null || e.seq >= account.urlSinceSeq) ? account.url : null;
        }
        if (!url) continue;
        items.push({
          merchantId: e.merchantId!, livemode: route.livemode, target: route.target, url, paymentId: e.paymentId,
          eventId: e.id, eventType: e.type, at: e.createdAt,
          payload: webhookBody({ id: e.id, type: e.type, livemode: e.livemode, createdAt: e.createdAt, data: e.data }),
        });
      }
      const inserted = await insertDeliveries(tx, items);
      if (inserted.length > 0) queued = true;
    },
    afterCommit(): void {
      if (!queued) return;
      queued = false;
      wake();
    },
  };
}
