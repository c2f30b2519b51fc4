// The webhooks room's service: endpoints, the test ping, the deliveries API, the outbox subscriber
// and the delivery worker, built from the platform once.
import type { Platform } from '../platform/context.ts';
import { badRequest } from '../platform/errors.ts';
import { newEventId } from '../platform/ids.ts';
import type { Actor } from '../audit/index.ts';
import type { Subscriber } from '../events/index.ts';
import { webhookBody, type Resolver } from './core.ts';
import {
  deliveriesForOperator, findDelivery, listDeliveries, redeliver, resolveDelivery, type DeliveryListQuery,
} from './delivery-store.ts';
import { orFail, WebhookEndpoints } from './endpoints.ts';
import { PING } from './routing.ts';
import type { DeliveryRow, DeliveryStatus } from './schema.ts';
import { WebhookSecrets, secretContext } from './secret-box.ts';
import { deliverySubscriber } from './subscriber.ts';
import { DeliveryWorker, type WorkerOptions } from './worker.ts';
import { PingQueue } from './ping.ts';

export const NO_URL_SET_FIRST = 'no webhook url is set for this mode: set one first';
export const COULD_NOT_QUEUE_TEST = 'could not queue the test';
export const PING_MESSAGE = 'this is a test webhook';

export interface WebhooksOptions {
  resolve?: Resolver;
  worker?: Partial<WorkerOptions>;
}

export class WebhooksService {
  readonly platform: Platform;
  readonly endpoints: WebhookEndpoints;
  readonly worker: DeliveryWorker;
  readonly subscriber: Subscriber;
  readonly #pings: PingQueue;
  #subscribed = false;

  constructor(platform: Platform, opts: WebhooksOptions = {}) {
    this.platform = platform;
    const { config, db, clock, log } = platform;
    this.endpoints = new WebhookEndpoints(db, clock, new WebhookSecrets(config.webhookSecretKey, config.authSecret), {
      allowPrivate: config.webhookAllowPrivate, resolve: opts.resolve,
    });
    this.worker = new DeliveryWorker(db, platform.outbox, clock, log, this.endpoints, {
      timeoutMs: config.webhookTimeoutMs, retryDelaysS: config.webhookRetryDelaysS,
      allowPrivate: config.webhookAllowPrivate, resolve: opts.resolve, ...opts.worker,
    });
    this.subscriber = deliverySubscriber(this.endpoints, () => this.worker.wake());
    this.#pings = new PingQueue(db, this.endpoints);
  }

  /**
   * Registers the subscriber on the outbox and starts the worker; secrets still sealed under
   * AUTH_SECRET are sealed again under the webhook key (while AUTH_SECRET is the one that sealed them).
   */
  start(): void {
    if (!this.#subscribed) this.platform.outbox.subscribe(this.subscriber);
    this.#subscribed = true;
    this.worker.start();
    this.endpoints.resealLegacy().then(({ resealed, unreadable }) => {
      if (resealed > 0) this.platform.log.info({ resealed }, 'webhook secrets sealed again under the webhook key');
      if (unreadable > 0) this.platform.log.error({ unreadable }, 'webhook secrets sealed under a former AUTH_SECRET cannot be opened: set AUTH_SECRET back to it once, or set new secrets');
    }, (err: unknown) => this.platform.log.warn({ err: (err as Error).message }, 'webhook secrets: sealing again failed; tried at the next start'));
  }

  /** Stops the worker; attempts in flight get `graceMs` to finish and be recorded. */
  stop(graceMs?: number): Promise<void> {
    return this.worker.stop(graceMs);
  }

  /**
   * Queues one more `ping` to the account URL of the mode (spec 4.1 rule 4): one statement, the row
   * handed to this process's worker as it goes in when the worker has room (ping.ts).
   */
  async testPing(merchantId: string, livemode: boolean): Promise<DeliveryRow> {
    const at = this.platform.clock.now();
    const eventId = newEventId(at);
    const row = await orFail(COULD_NOT_QUEUE_TEST, () => this.#pings.queue({
      merchantId, livemode, eventId, eventType: PING, at,
      payload: webhookBody({ id: eventId, type: PING, livemode, createdAt: at, data: { message: PING_MESSAGE } }),
    }, (host) => this.worker.reserve(host)));
    if (!row) throw badRequest(NO_URL_SET_FIRST);
    // A row handed over is being attempted already; one left unclaimed waits for a look at the queue.
    if (row.claim === null) this.worker.wake();
    return row;
  }

  list(q: DeliveryListQuery): Promise<DeliveryRow[]> {
    return listDeliveries(this.platform.db.orm, q);
  }

  forOperator(status: DeliveryStatus | undefined, limit: number, offset: number): Promise<{ rows: DeliveryRow[]; total: number }> {
    return deliveriesForOperator(this.platform.db.orm, status, limit, offset);
  }

  get(merchantId: string, id: string): Promise<DeliveryRow> {
    return findDelivery(this.platform.db.orm, merchantId, id);
  }

  async redeliver(merchantId: string, id: string, actor: Actor): Promise<DeliveryRow> {
    const { db, clock, outbox } = this.platform;
    const { row, announced } = await db.transaction(async (tx) => {
      const found = await findDelivery(tx, merchantId, id);
      const url = (await this.endpoints.current(tx, [found])).get(secretContext(found.merchantId, found.livemode))?.url ?? null;
      return redeliver(tx, outbox, merchantId, id, whoOf(actor), clock.now(), url);
    });
    outbox.announced(announced);
    this.worker.wake();
    return row;
  }

  async resolve(merchantId: string, id: string, actor: Actor, note: string | null): Promise<DeliveryRow> {
    const { db, clock, outbox } = this.platform;
    const { row, announced } = await db.transaction((tx) => resolveDelivery(tx, outbox, merchantId, id, whoOf(actor), note, clock.now()));
    outbox.announced(announced);
    return row;
  }
}

/** How a history note names who asked: a member's email, else the actor kind and id. */
export function whoOf(actor: Actor): string {
  return actor.email ?? [actor.kind, actor.id].filter(Boolean).join(' ');
}
