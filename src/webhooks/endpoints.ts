// The account's webhook endpoints: one per merchant and mode (spec part 2 Webhook, 4.1 rules 1-3,
// 4.4). The secret is made on first read and kept on DELETE; `updated_at` moves only when the URL
// or the secret changes. Every change is audited (never the secret) and told to the dashboard.
import { and, eq, inArray, like, sql } from 'drizzle-orm';
import type { Database, Executor, Tx } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import { AppError, badRequest } from '../platform/errors.ts';
import { randomHex } from '../platform/ids.ts';
import { appendEvent } from '../events/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { checkWebhookUrl, destinationKey, type Resolver } from './core.ts';
import { deliveries, webhooks, type WebhookRow } from './schema.ts';
import { secretContext, type WebhookSecrets } from './secret-box.ts';

export const COULD_NOT_SET = 'could not set the webhook';
export const COULD_NOT_REMOVE = 'could not remove the webhook';
export const COULD_NOT_READ = 'could not read the webhook';
export const COULD_NOT_ROLL = 'could not roll the webhook secret';
export const AUDIT_URL_SET = 'webhook.url_set';
export const AUDIT_URL_REMOVED = 'webhook.url_removed';
export const AUDIT_SECRET_ROLLED = 'webhook.secret_rolled';
export const WEBHOOK_UPDATE_EVENT = 'webhook:update';

const OPENED_KEPT = 10_000;

export interface Webhook {
  merchantId: string;
  livemode: boolean;
  url: string | null;
  secret: string;
  /** The events.seq from which the URL counts (see setUrl); null: no bound. Never shown. */
  urlSinceSeq: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export function webhookJson(w: Webhook, opts: { secret: boolean } = { secret: true }): Record<string, unknown> {
  return {
    livemode: w.livemode,
    url: w.url,
    ...(opts.secret ? { secret: w.secret } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

/** Runs fn; a failure that is not the caller's fault becomes the route's 500 message. */
export async function orFail<T>(message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw Object.assign(new AppError(500, message), { cause: err });
  }
}

export class WebhookEndpoints {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #box: WebhookSecrets;
  readonly #allowPrivate: boolean;
  readonly #resolve: Resolver | undefined;

  constructor(db: Database, clock: Clock, box: WebhookSecrets, opts: { allowPrivate: boolean; resolve?: Resolver }) {
    this.#db = db;
    this.#clock = clock;
    this.#box = box;
    this.#allowPrivate = opts.allowPrivate;
    this.#resolve = opts.resolve;
  }

  // Opened secrets by their sealed text (a new secret is a new text, so entries never go stale).
  readonly #opened = new Map<string, string>();

  /** The endpoint of a row as read, its secret opened (a sealed text is opened once). */
  opened(r: WebhookRow): Webhook {
    let secret = this.#opened.get(r.secretEnc);
    if (secret === undefined) {
      secret = this.#box.open(r.secretEnc, secretContext(r.merchantId, r.livemode));
      if (this.#opened.size >= OPENED_KEPT) this.#opened.clear();
      this.#opened.set(r.secretEnc, secret);
    }
    return { merchantId: r.merchantId, livemode: r.livemode, url: r.url, secret, urlSinceSeq: r.urlSinceSeq, createdAt: r.createdAt, updatedAt: r.updatedAt };
  }

  /**
   * Seals every secret still sealed under AUTH_SECRET (`v1`) again under the webhook key, each row
   * only if it is unchanged meanwhile (another process may do the same). Returns how many moved,
   * and how many do not open (sealed under an AUTH_SECRET that is gone: those stay as they are).
   */
  async resealLegacy(): Promise<{ resealed: number; unreadable: number }> {
    const rows = await this.#db.orm.select().from(webhooks).where(like(webhooks.secretEnc, 'v1:%'));
    let resealed = 0;
    let unreadable = 0;
    for (const r of rows) {
      const context = secretContext(r.merchantId, r.livemode);
      let secret: string;
      try {
        secret = this.#box.open(r.secretEnc, context);
      } catch {
        unreadable++;
        continue;
      }
      const moved = await this.#db.orm.update(webhooks).set({ secretEnc: this.#box.seal(secret, context) })
        .where(and(eq(webhooks.merchantId, r.merchantId), eq(webhooks.livemode, r.livemode), eq(webhooks.secretEnc, r.secretEnc)))
        .returning({ m: webhooks.merchantId });
      resealed += moved.length;
    }
    return { resealed, unreadable };
  }

  /** The endpoints of these merchants and modes as they are now, without creating any (the worker's view). */
  async current(ex: Executor, keys: { merchantId: string; livemode: boolean }[]): Promise<Map<string, Webhook>> {
    const out = new Map<string, Webhook>();
    const ids = [...new Set(keys.map((k) => k.merchantId))];
    if (ids.length === 0) return out;
    const rows = await ex.select().from(webhooks).where(inArray(webhooks.merchantId, ids));
    for (const r of rows) out.set(secretContext(r.merchantId, r.livemode), this.opened(r));
    return out;
  }

  // The row, created with a fresh secret when missing, locked for the rest of the transaction.
  async #ensure(tx: Tx, merchantId: string, livemode: boolean): Promise<Webhook> {
    const now = this.#clock.now();
    await tx.insert(webhooks).values({
      merchantId, livemode, url: null, secretEnc: this.#box.seal(randomHex(32), secretContext(merchantId, livemode)),
      createdAt: now, updatedAt: now,
    }).onConflictDoNothing();
    const [row] = await tx.select().from(webhooks)
      .where(and(eq(webhooks.merchantId, merchantId), eq(webhooks.livemode, livemode))).for('update');
    return this.opened(row);
  }

  get(merchantId: string, livemode: boolean): Promise<Webhook> {
    return orFail(COULD_NOT_READ, () => this.#db.transaction((tx) => this.#ensure(tx, merchantId, livemode)));
  }

  async setUrl(merchantId: string, livemode: boolean, input: unknown, actor: Actor): Promise<Webhook> {
    const check = await checkWebhookUrl(input, { allowPrivate: this.#allowPrivate, resolve: this.#resolve });
    if (!check.ok) throw badRequest(check.error);
    return orFail(COULD_NOT_SET, () => this.#db.transaction(async (tx) => {
      const before = await this.#ensure(tx, merchantId, livemode);
      if (before.url === check.url) return before;
      const after = await this.#update(tx, before, { url: check.url });
      // A new URL applies at once, also to queued retries (spec 4.1 rule 1; each attempt reads the URL
      // anyway): their host (the limiter's key) follows it. The `url` shown is where a delivery was last
      // posted, and only before its first attempt where it is going (spec part 2 Delivery object), so
      // only deliveries not yet attempted show the new one; the others show it from their next attempt.
      const key = destinationKey(check.url);
      await tx.update(deliveries).set({ url: sql`case when ${deliveries.attempts} = 0 then ${check.url} else ${deliveries.url} end`, host: key }).where(and(
        eq(deliveries.merchantId, merchantId), eq(deliveries.livemode, livemode),
        eq(deliveries.target, 'account'), eq(deliveries.status, 'pending'),
      ));
      const seq = await this.#told(tx, AUDIT_URL_SET, before, after, actor);
      // A mode that had no URL: events raised until now were raised with nothing set and are never
      // sent to this URL, however late the outbox hands them over (spec 6.1 Routing, subscriber.ts).
      // The bound is the seq of the event just written in this transaction, not a time: events'
      // created_at is the writer's clock, and seq is taken from one database sequence as each event
      // is inserted. So an event inserted before this point by a transaction that commits only after
      // this one counts as raised before the URL (not sent); one inserted after it is sent, even from
      // a transaction begun earlier. A URL changed from one to another keeps its bound: what was raised
      // under the former URL still goes, to the new one, as retries do.
      if (before.url === null) {
        await tx.update(webhooks).set({ urlSinceSeq: seq })
          .where(and(eq(webhooks.merchantId, merchantId), eq(webhooks.livemode, livemode)));
        return { ...after, urlSinceSeq: seq };
      }
      return after;
    }));
  }

  removeUrl(merchantId: string, livemode: boolean, actor: Actor): Promise<Webhook> {
    return orFail(COULD_NOT_REMOVE, () => this.#db.transaction(async (tx) => {
      const before = await this.#ensure(tx, merchantId, livemode);
      if (before.url === null) return before;
      const after = await this.#update(tx, before, { url: null });
      await this.#told(tx, AUDIT_URL_REMOVED, before, after, actor);
      return after;
    }));
  }

  rollSecret(merchantId: string, livemode: boolean, actor: Actor): Promise<Webhook> {
    return orFail(COULD_NOT_ROLL, () => this.#db.transaction(async (tx) => {
      const before = await this.#ensure(tx, merchantId, livemode);
      const after = await this.#update(tx, before, { secret: randomHex(32) });
      await this.#told(tx, AUDIT_SECRET_ROLLED, before, after, actor);
      return after;
    }));
  }

  async #update(tx: Tx, w: Webhook, change: { url?: string | null; secret?: string }): Promise<Webhook> {
    const updatedAt = this.#clock.now();
    const next: Webhook = { ...w, ...change, updatedAt };
    await tx.update(webhooks).set({
      url: next.url,
      ...(change.secret !== undefined ? { secretEnc: this.#box.seal(change.secret, secretContext(w.merchantId, w.livemode)) } : {}),
      updatedAt,
    }).where(and(eq(webhooks.merchantId, w.merchantId), eq(webhooks.livemode, w.livemode)));
    return next;
  }

  // Audit entry (without the secret) and the `webhook:update` socket event, in the change's transaction.
  // Returns the seq of the `webhook:update` event.
  async #told(tx: Tx, action: string, before: Webhook, after: Webhook, actor: Actor): Promise<number> {
    const at = after.updatedAt;
    await recordAudit(tx, {
      merchantId: after.merchantId, action, actor, subject: secretContext(after.merchantId, after.livemode),
      before: { url: before.url }, after: { url: after.url }, at,
    });
    const e = await appendEvent(tx, {
      type: WEBHOOK_UPDATE_EVENT, livemode: after.livemode, merchantId: after.merchantId,
      data: webhookJson(after, { secret: false }), at,
    });
    return e.seq;
  }
}
