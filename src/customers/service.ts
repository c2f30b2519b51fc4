// The customers room's service (CONTRACT.md "Customers"): list, read with recent payments, make by
// hand, change name and metadata. Made from payments by customerFeed (feed.ts), not here.
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Platform } from '../platform/context.ts';
import { withTotal } from '../platform/db/index.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { isIdShaped } from '../platform/fields.ts';
import { listParams, LIST_DEFAULT } from '../platform/list-params.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { recentGroupPayments } from '../payments/index.ts';
import { customers, type CustomerRow } from './schema.ts';
import { customerJson, emitCustomerUpdate } from './json.ts';
import { CUSTOMER_EXISTS, parseCustomerPatch, parseNewCustomer, searchText } from './input.ts';

/** GET /merchant/customers/{id} adds up to this many of its payments, newest first. */
export const RECENT_PAYMENTS = 20;

/** The merchant's views of payments by id, in the order given (the payments room's). */
export type PaymentViews = (merchantId: string, ids: readonly string[]) => Promise<Record<string, unknown>[]>;

export class CustomersService {
  readonly platform: Platform;
  readonly #views: PaymentViews;

  constructor(platform: Platform, views: PaymentViews) {
    this.platform = platform;
    this.#views = views;
  }

  async list(merchantId: string, livemode: boolean, query: Record<string, unknown>) {
    const page = listParams(query, LIST_DEFAULT);
    const q = searchText(query.q);
    const where: SQL[] = [eq(customers.merchantId, merchantId), eq(customers.livemode, livemode)];
    if (q !== undefined) {
      where.push(sql`(position(lower(${q}) in lower(${customers.email})) > 0 or position(lower(${q}) in lower(coalesce(${customers.name}, ''))) > 0)`);
    }
    const db = this.platform.db.orm;
    const { rows, total } = await withTotal(db, customers, and(...where),
      db.select().from(customers).where(and(...where)).orderBy(desc(customers.createdAt), desc(customers.id)).limit(page.limit).offset(page.offset));
    return { customers: rows.map(customerJson), total, limit: page.limit, offset: page.offset };
  }

  async #find(merchantId: string, id: string): Promise<CustomerRow> {
    if (!isIdShaped(id)) throw notFound();
    const [row] = await this.platform.db.orm.select().from(customers).where(and(eq(customers.id, id), eq(customers.merchantId, merchantId))).limit(1);
    if (!row) throw notFound();
    return row;
  }

  /** A customer of either mode, with its latest payments. */
  async get(merchantId: string, id: string): Promise<Record<string, unknown>> {
    const row = await this.#find(merchantId, id);
    const ids = await recentGroupPayments(this.platform.db.orm, row.id, RECENT_PAYMENTS);
    return { ...customerJson(row), recent_payments: await this.#views(merchantId, ids) };
  }

  async create(merchantId: string, livemode: boolean, body: Record<string, unknown>, actor: Actor): Promise<CustomerRow> {
    const input = parseNewCustomer(body);
    const now = this.platform.clock.now();
    return this.platform.db.transaction(async (tx) => {
      const [row] = await tx.insert(customers).values({
        id: newId('cus', now), merchantId, livemode, email: input.email, name: input.name ?? null, metadata: input.metadata ?? null,
        createdAt: now, updatedAt: now,
      }).onConflictDoNothing().returning();
      if (!row) throw conflict(CUSTOMER_EXISTS);
      await recordAudit(tx, { merchantId, action: 'customer.created', actor, subject: row.id, after: customerJson(row), at: now });
      await emitCustomerUpdate(tx, row, now);
      return row;
    });
  }

  async update(merchantId: string, id: string, body: Record<string, unknown>, actor: Actor): Promise<CustomerRow> {
    const patch = parseCustomerPatch(body);
    if (!isIdShaped(id)) throw notFound();
    const now = this.platform.clock.now();
    return this.platform.db.transaction(async (tx) => {
      // Read under the row lock: the audit's `before` is what this change replaced, even when
      // another change committed since the request began.
      const [before] = await tx.select().from(customers).where(and(eq(customers.id, id), eq(customers.merchantId, merchantId))).for('update');
      if (!before) throw notFound();
      const [row] = await tx.update(customers).set({ ...patch, updatedAt: now }).where(eq(customers.id, before.id)).returning();
      await recordAudit(tx, { merchantId, action: 'customer.updated', actor, subject: row.id, before: customerJson(before), after: customerJson(row), at: now });
      await emitCustomerUpdate(tx, row, now);
      return row;
    });
  }
}
