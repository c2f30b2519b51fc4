// The payment links room's service (CONTRACT.md "Payment links"): the merchant's routes, and the
// public side where a customer opening a link gets a new payment of it.
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Platform } from '../platform/context.ts';
import { withTotal } from '../platform/db/index.ts';
import { badRequest, conflict, forbidden, notFound } from '../platform/errors.ts';
import { newId, pooledRandomBytes } from '../platform/ids.ts';
import { isIdShaped, present, refuseNul } from '../platform/fields.ts';
import { listParams, LIST_DEFAULT } from '../platform/list-params.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { captureSettings, enabledTokensOf, findStore, merchants, UNKNOWN_STORE, type CapturedSettings, type Merchant } from '../accounts/index.ts';
import { isOpen, notEnabled, parseCreateInput, type CreateGuard, type KeyCaller, type PaymentStatus } from '../payments/index.ts';
import { paymentLinks, type LinkRow } from './schema.ts';
import { emitLinkUpdate, linkJson } from './json.ts';
import { activeFilter, parseLinkPatch, parseNewLink } from './input.ts';

/** A live link while the account's live mode is off (creation). */
export const LIVE_LINK_OFF = 'live mode is off for this account: the owner can turn it on in the dashboard; until then make a test link (?mode=test)';
/** A customer opening a live link of an account whose live mode was turned off since. */
export const LINK_NOT_TAKING_PAYMENTS = 'this link is not taking payments right now';

/**
 * What links need of the payments room: its creation (POST /v1/payments' own use case), the payer's
 * views, and the coins a payment may be offered now (enabled, and in live mode on a chain with a node).
 */
export interface LinkPayments {
  create(caller: KeyCaller, body: Record<string, unknown>, guard?: CreateGuard): Promise<{ payment: Record<string, unknown>; created: boolean }>;
  checkoutView(checkoutToken: string): Promise<Record<string, unknown>>;
  /** The payer's view (with merchant_name, store_name) of the merchant's view `create` answers. */
  payerViewOf(view: Record<string, unknown>): Promise<Record<string, unknown>>;
  readonly catalog: { offered(settings: CapturedSettings, livemode: boolean): readonly string[] };
}

/** Order numbers in a row already open as the merchant's own payments: the link stops looking (a merchant scripting that many is refused). */
const MAX_TAKEN_NUMBERS = 20;
export const LINK_NUMBERS_TAKEN = "this link's next order ids are taken by open payments: try again later";
/** The order ids a link gives out: `link_<link id>_<n>` (CONTRACT.md). */
export const linkOrderPrefix = (linkId: string): string => `link_${linkId}_`;
export const linkOrderId = (linkId: string, n: number): string => `${linkOrderPrefix(linkId)}${n}`;

const NO_COIN: readonly string[] = [];

/**
 * The coins a link's payment offers now: the link's own that can be paid now, the merchant still
 * accepting them and, for a live link, their chain having a node (a coin turned off, or whose node
 * is gone, after the link was made is left out, not refused to the customer with a message meant
 * for the merchant); null: every coin the merchant accepts; NO_COIN: none of the link's is left,
 * and the link takes no payments until one can be paid again. A link of every coin follows the
 * same rule: when none of the merchant's coins can be paid now (a live link whose coins' chains
 * have no node), it is not taking payments either, rather than answering the creation's `no coin
 * is available for this payment` while HEAD says it works.
 */
function coinsNow(link: LinkRow, merchant: Merchant, payments: LinkPayments): readonly string[] | null {
  const offered = payments.catalog.offered(captureSettings(merchant), link.livemode);
  if (!link.tokens) return offered.length === 0 ? NO_COIN : null;
  const kept = link.tokens.filter((t) => offered.includes(t));
  return kept.length === 0 ? NO_COIN : kept;
}

export class LinksService {
  readonly platform: Platform;
  readonly #payments: LinkPayments;

  constructor(platform: Platform, payments: LinkPayments) {
    this.platform = platform;
    this.#payments = payments;
  }

  get checkoutBase(): string | null {
    return this.platform.config.checkoutUrl;
  }

  json(l: LinkRow): Record<string, unknown> {
    return linkJson(l, this.checkoutBase);
  }

  async list(merchantId: string, livemode: boolean, query: Record<string, unknown>) {
    const page = listParams(query, LIST_DEFAULT);
    const active = activeFilter(query.active);
    const where: SQL[] = [eq(paymentLinks.merchantId, merchantId), eq(paymentLinks.livemode, livemode)];
    if (active !== undefined) where.push(eq(paymentLinks.active, active));
    const db = this.platform.db.orm;
    const { rows, total } = await withTotal(db, paymentLinks, and(...where),
      db.select().from(paymentLinks).where(and(...where)).orderBy(desc(paymentLinks.createdAt), desc(paymentLinks.id)).limit(page.limit).offset(page.offset));
    return { links: rows.map((r) => this.json(r)), total, limit: page.limit, offset: page.offset };
  }

  /** A link of the merchant, either mode. */
  async get(merchantId: string, id: string): Promise<LinkRow> {
    if (!isIdShaped(id)) throw notFound();
    const [row] = await this.platform.db.orm.select().from(paymentLinks).where(and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, merchantId))).limit(1);
    if (!row) throw notFound();
    return row;
  }

  async create(merchant: Merchant, livemode: boolean, body: Record<string, unknown>, actor: Actor): Promise<LinkRow> {
    const input = parseNewLink(body);
    if (livemode && !merchant.liveEnabled) throw forbidden(LIVE_LINK_OFF);
    const enabled = enabledTokensOf(merchant);
    for (const t of input.tokens ?? []) if (!enabled.includes(t)) throw badRequest(notEnabled(t));
    const now = this.platform.clock.now();
    return this.platform.db.transaction(async (tx) => {
      if (input.storeId && !(await findStore(tx, merchant.id, input.storeId))) throw badRequest(UNKNOWN_STORE);
      const [row] = await tx.insert(paymentLinks).values({
        id: newId('lnk', now), merchantId: merchant.id, livemode, storeId: input.storeId,
        slug: pooledRandomBytes(12).toString('base64url'), name: input.name, amountUsd: input.amountUsd,
        description: input.description, tokens: input.tokens, successUrl: input.successUrl, cancelUrl: input.cancelUrl,
        createdAt: now, updatedAt: now,
      }).returning();
      await recordAudit(tx, { merchantId: merchant.id, action: 'payment_link.created', actor, subject: row.id, after: this.json(row), at: now });
      await emitLinkUpdate(tx, row, this.checkoutBase, now);
      return row;
    });
  }

  async update(merchantId: string, id: string, body: Record<string, unknown>, actor: Actor): Promise<LinkRow> {
    const patch = parseLinkPatch(body);
    if (!isIdShaped(id)) throw notFound();
    const now = this.platform.clock.now();
    return this.platform.db.transaction(async (tx) => {
      // Read under the row lock: the audit's `before` is what this change replaced, even when
      // another change committed since the request began.
      const [before] = await tx.select().from(paymentLinks).where(and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, merchantId))).for('update');
      if (!before) throw notFound();
      const [row] = await tx.update(paymentLinks).set({ ...patch, updatedAt: now }).where(eq(paymentLinks.id, before.id)).returning();
      await recordAudit(tx, { merchantId, action: 'payment_link.updated', actor, subject: id, before: this.json(before), after: this.json(row), at: now });
      await emitLinkUpdate(tx, row, this.checkoutBase, now);
      return row;
    });
  }

  /** An active link of an active account by its slug, with its merchant; 404 `not found` otherwise. */
  async #open(slug: string): Promise<{ link: LinkRow; merchant: Merchant }> {
    if (!isIdShaped(slug)) throw notFound();
    const [row] = await this.platform.db.orm.select({ link: paymentLinks, merchant: merchants }).from(paymentLinks)
      .innerJoin(merchants, eq(merchants.id, paymentLinks.merchantId))
      .where(eq(paymentLinks.slug, slug)).limit(1);
    if (!row || !row.link.active || row.merchant.status === 'suspended') throw notFound();
    return row;
  }

  /** Whether a slug names a link that takes payments now (HEAD of the hosted page). */
  async isOpen(slug: string): Promise<boolean> {
    try {
      const { link, merchant } = await this.#open(slug);
      return (!link.livemode || merchant.liveEnabled) && coinsNow(link, merchant, this.#payments) !== NO_COIN;
    } catch {
      return false;
    }
  }

  /**
   * A new payment of the link, as its payer sees it plus `checkout_url`. The order number is taken
   * first (a number a failed creation took is skipped, never reused); the payment itself is made by
   * the payments room's creation with the link's store, coins, pages and mode.
   */
  async pay(slug: string, body: Record<string, unknown>, actor: Actor): Promise<Record<string, unknown>> {
    const email = body.customer_email;
    refuseNul('customer_email', email);
    // Checked before an order number is taken, with the payments room's own message.
    if (present(email) && email !== '') parseCreateInput({ order_id: 'link', amount_usd: '1', customer_email: email });
    return this.#pay(await this.#open(slug), email, actor);
  }

  /**
   * The hosted page (GET /l/{slug}): the checkout URL of a new payment of the link, or of the one
   * `remembered` names when it is this link's and still open (the page was opened again): pending,
   * or paid in part or being confirmed, when a new payment would have the payer pay twice.
   */
  async openPage(slug: string, remembered: string | undefined, actor: Actor): Promise<{ checkoutUrl: string; checkoutToken: string }> {
    const opened = await this.#open(slug);
    if (remembered && isIdShaped(remembered)) {
      const p = await this.#payments.checkoutView(remembered).catch(() => null);
      if (p && isOpen(p.status as PaymentStatus) && String(p.order_id).startsWith(linkOrderPrefix(opened.link.id))) {
        return { checkoutUrl: `${this.checkoutBase}/pay/${remembered}`, checkoutToken: remembered };
      }
    }
    const payment = await this.#pay(opened, undefined, actor);
    const checkoutUrl = String(payment.checkout_url);
    return { checkoutUrl, checkoutToken: checkoutUrl.slice(checkoutUrl.lastIndexOf('/') + 1) };
  }

  async #pay({ link, merchant }: { link: LinkRow; merchant: Merchant }, email: unknown, actor: Actor): Promise<Record<string, unknown>> {
    if (link.livemode && !merchant.liveEnabled) throw forbidden(LINK_NOT_TAKING_PAYMENTS);
    const tokens = coinsNow(link, merchant, this.#payments);
    if (tokens === NO_COIN) throw forbidden(LINK_NOT_TAKING_PAYMENTS);
    const body = {
      amount_usd: link.amountUsd,
      metadata: { link_id: link.id },
      description: link.description ?? link.name,
      ...(tokens ? { tokens } : {}),
      ...(link.successUrl ? { success_url: link.successUrl } : {}),
      ...(link.cancelUrl ? { cancel_url: link.cancelUrl } : {}),
      ...(present(email) && email !== '' ? { customer_email: email } : {}),
    };
    // The link was read active without a lock: a deactivation may have committed since. The payment is
    // written in a transaction that reads the link again under FOR KEY SHARE, which the deactivation's
    // FOR UPDATE (update()) waits for: no payment of the link is made after its deactivation answered.
    // (KEY SHARE, not SHARE: the order number's increment for another payment of the link does not wait for it.)
    const stillActive: CreateGuard = async (tx) => {
      const [row] = await tx.select({ active: paymentLinks.active }).from(paymentLinks).where(eq(paymentLinks.id, link.id)).for('key share');
      if (!row?.active) throw notFound();
    };
    // A new payment every time: an open payment the merchant made with this order id by hand (the
    // creation answers it again rather than making one) would hand this payer another's payment,
    // of another amount: that number is passed over for the next.
    for (let tries = 0; tries < MAX_TAKEN_NUMBERS; tries++) {
      const [{ n }] = await this.platform.db.orm.update(paymentLinks).set({ lastNumber: sql`${paymentLinks.lastNumber} + 1` })
        .where(eq(paymentLinks.id, link.id)).returning({ n: paymentLinks.lastNumber });
      const { payment, created } = await this.#payments.create({ merchant, livemode: link.livemode, storeId: link.storeId, actor }, { ...body, order_id: linkOrderId(link.id, Number(n)) }, stillActive);
      if (created) return { ...(await this.#payments.payerViewOf(payment)), ...(payment.checkout_url !== undefined ? { checkout_url: payment.checkout_url } : {}) };
    }
    throw conflict(LINK_NUMBERS_TAKEN);
  }
}
