// The payments tables: reads by scope, the insert guarded by the open-order index, row locks and
// compare-and-set updates. No HTTP here; callers pass a transaction when they change state.
import { and, asc, count, desc, eq, gte, ilike, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import { queryRows } from '../platform/db/index.ts';
import type { Chain } from '../config.ts';
import { RefilledStock } from '../platform/refilled-stock.ts';
import type { ListTotals } from './list-totals.ts';
import { OPEN_STATUSES } from './pure.ts';
import { deposits, payments, type DepositRow, type NewPaymentRow, type PaymentRow } from './schema.ts';

/** Who may see a payment: merchant and mode; a storefront key only its store, an account key only no store. */
export interface PaymentScope {
  merchantId: string;
  livemode?: boolean;
  /** undefined: any store (dashboard); null: payments made with no store's key; a string: that store. */
  storeId?: string | null;
}

export interface PaymentFilters {
  status?: string;
  token?: string;
  chain?: string;
  storeId?: string;
  orderId?: string;
  /** Contained (any case) in the order id, payment id, customer email or deposit address. */
  search?: string;
  createdFrom?: Date;
  /** Exclusive. */
  createdBefore?: Date;
}

/** Escapes LIKE wildcards so a search matches literally. */
const contains = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function scopeWhere(s: PaymentScope): SQL[] {
  const w: SQL[] = [eq(payments.merchantId, s.merchantId)];
  if (s.livemode !== undefined) w.push(eq(payments.livemode, s.livemode));
  if (s.storeId !== undefined) w.push(s.storeId === null ? isNull(payments.storeId) : eq(payments.storeId, s.storeId));
  return w;
}

/**
 * Inserts; undefined when an open payment with this order_id already exists in the scope. ON
 * CONFLICT DO NOTHING with no target covers the partial unique index on open orders (ids and
 * checkout tokens are random, so that index is the only one a new row can meet).
 */
export async function insertPayment(tx: Executor, row: NewPaymentRow): Promise<PaymentRow | undefined> {
  const [inserted] = await tx.insert(payments).values(row).onConflictDoNothing().returning();
  return inserted;
}

export async function findOpenByOrder(ex: Executor, scope: { merchantId: string; livemode: boolean; storeId: string | null }, orderId: string): Promise<PaymentRow | undefined> {
  const [row] = await ex.select().from(payments)
    .where(and(...scopeWhere(scope), eq(payments.orderId, orderId), inArray(payments.status, [...OPEN_STATUSES]))).limit(1);
  return row;
}

export async function findPayment(ex: Executor, id: string, scope?: PaymentScope): Promise<PaymentRow | undefined> {
  const [row] = await ex.select().from(payments).where(and(eq(payments.id, id), ...(scope ? scopeWhere(scope) : []))).limit(1);
  return row;
}

/** A merchant's payments among these ids, in no particular order. */
export function findMerchantPayments(ex: Executor, merchantId: string, ids: readonly string[]): Promise<PaymentRow[]> {
  return ex.select().from(payments).where(and(eq(payments.merchantId, merchantId), inArray(payments.id, [...ids])));
}

export async function findByCheckoutToken(ex: Executor, token: string): Promise<PaymentRow | undefined> {
  const [row] = await ex.select().from(payments).where(eq(payments.checkoutToken, token)).limit(1);
  return row;
}

type JoinedRow = { payments: PaymentRow; deposits: DepositRow | null };

const joined = (ex: Executor) => ex.select().from(payments).leftJoin(deposits, eq(deposits.paymentId, payments.id));

/** The public checkout read is the hottest query: built once per database, as a prepared statement. */
const byCheckoutToken = new WeakMap<Executor, { execute(v: { token: string }): Promise<JoinedRow[]> }>();
function checkoutQuery(ex: Executor) {
  let q = byCheckoutToken.get(ex);
  if (!q) {
    q = joined(ex).where(eq(payments.checkoutToken, sql.placeholder('token'))).orderBy(asc(deposits.seenAt), asc(deposits.id)).prepare('payment_by_checkout_token');
    byCheckoutToken.set(ex, q);
  }
  return q;
}

/** A payment with its deposits in one round trip (payment by id in a scope, or by checkout token). */
export async function findWithDeposits(ex: Executor, by: { id: string; scope?: PaymentScope } | { checkoutToken: string }): Promise<{ payment: PaymentRow; deposits: DepositRow[] } | undefined> {
  const rows: JoinedRow[] = 'checkoutToken' in by
    ? await checkoutQuery(ex).execute({ token: by.checkoutToken })
    : await joined(ex).where(and(eq(payments.id, by.id), ...(by.scope ? scopeWhere(by.scope) : []))).orderBy(asc(deposits.seenAt), asc(deposits.id));
  if (rows.length === 0) return undefined;
  return { payment: rows[0].payments, deposits: rows.flatMap((r) => (r.deposits ? [r.deposits] : [])) };
}

/** The payment row locked for the rest of the transaction. */
export async function lockPayment(tx: Executor, id: string): Promise<PaymentRow | undefined> {
  const [row] = await tx.select().from(payments).where(eq(payments.id, id)).for('update').limit(1);
  return row;
}

/** Compare-and-set: changes the row only while its status is still `expected`; the new row, or undefined. */
export async function updatePaymentIf(tx: Executor, id: string, expected: { status: string; token?: string }, set: Partial<NewPaymentRow>): Promise<PaymentRow | undefined> {
  const conds = [eq(payments.id, id), eq(payments.status, expected.status)];
  if (expected.token !== undefined) conds.push(eq(payments.token, expected.token));
  const [row] = await tx.update(payments).set(set).where(and(...conds)).returning();
  return row;
}

/**
 * A page of payments, newest first, and how many match. `totals` (PGlite only, see list-totals.ts)
 * keeps the total of an unfiltered merchant-and-mode list between pages.
 */
export async function listPayments(ex: Executor, scope: PaymentScope, f: PaymentFilters, page: { limit: number; offset: number }, totals?: ListTotals): Promise<{ rows: PaymentRow[]; total: number }> {
  const w = [...scopeWhere(scope)];
  if (f.status !== undefined) w.push(eq(payments.status, f.status));
  if (f.token !== undefined) w.push(eq(payments.token, f.token));
  if (f.chain !== undefined) w.push(eq(payments.chain, f.chain));
  if (f.storeId !== undefined) w.push(eq(payments.storeId, f.storeId));
  if (f.orderId !== undefined) w.push(eq(payments.orderId, f.orderId));
  if (f.search !== undefined) {
    const p = contains(f.search);
    w.push(or(ilike(payments.orderId, p), ilike(payments.id, p), ilike(payments.customerEmail, p), ilike(payments.depositAddress, p))!);
  }
  if (f.createdFrom !== undefined) w.push(gte(payments.createdAt, f.createdFrom));
  if (f.createdBefore !== undefined) w.push(lt(payments.createdAt, f.createdBefore));
  const where = and(...w);
  const rows = await ex.select().from(payments).where(where).orderBy(desc(payments.createdAt), desc(payments.id)).limit(page.limit).offset(page.offset);
  const counted = async () => Number((await ex.select({ n: count() }).from(payments).where(where))[0].n);
  const unfiltered = scope.storeId === undefined && scope.livemode !== undefined && Object.values(f).every((v) => v === undefined);
  // A page shorter than the limit tells the total by itself (no count at all, on any engine).
  if (rows.length < page.limit && (rows.length > 0 || page.offset === 0)) return { rows, total: page.offset + rows.length };
  const total = totals && unfiltered ? await totals.total(ex, `${scope.merchantId}:${scope.livemode}`, counted) : await counted();
  return { rows, total };
}

export async function depositsOf(ex: Executor, paymentIds: readonly string[]): Promise<Map<string, DepositRow[]>> {
  const out = new Map<string, DepositRow[]>();
  if (paymentIds.length === 0) return out;
  const rows = await ex.select().from(deposits).where(inArray(deposits.paymentId, [...paymentIds])).orderBy(asc(deposits.seenAt), asc(deposits.id));
  for (const r of rows) out.set(r.paymentId, [...(out.get(r.paymentId) ?? []), r]);
  return out;
}

const RESERVE_BLOCK = 20;

/**
 * Never-used numbers from the database sequences (deposit address indexes per chain and mode, XRP
 * destination tags per mode), reserved a block at a time so most payments need no round trip for
 * them. Sequences never hand a number out twice, across processes too; numbers reserved by a
 * process that stops are simply skipped.
 */
export class NumberReserve {
  readonly #db: Database;
  readonly #stock = new RefilledStock<number>((seq) => this.reserveBlock(seq));

  /**
   * Reserves outside any transaction, always: on PGlite a query behind an open transaction waits
   * for it, and a transaction waiting for that same refill would never end.
   */
  constructor(db: Database) {
    this.#db = db;
  }

  /** `size` never-used numbers of a sequence, ascending (one round trip). */
  async reserveBlock(seq: string, size = RESERVE_BLOCK): Promise<number[]> {
    const rows = await queryRows<{ n: string }>(this.#db.orm, sql`select nextval(${seq}) as n from generate_series(1, ${size})`);
    return rows.map((r) => Number(r.n)).sort((a, b) => a - b);
  }

  /** The sequence of the deposit address indexes of a chain and mode. */
  static addressSequence(chain: Chain, livemode: boolean): string {
    return `deposit_index_${chain}_${livemode ? 'live' : 'test'}`;
  }

  /** The next XRP destination tag of a mode, unique across payments. */
  destinationTag(livemode: boolean): Promise<number> {
    return this.#stock.take(`xrp_destination_tag_${livemode ? 'live' : 'test'}`);
  }
}

/**
 * The open-or-recent payment that owns a deposit address (and XRP tag), newest first. Every XRP
 * payment of a mode shares one service address and is told apart only by its tag: a transfer with
 * no tag matches only payments that have none (never an XRP payment), and an unknown tag matches
 * nothing, so such a deposit is unmatched (CONTRACT.md "Live chains").
 */
export async function findByAddress(ex: Executor, address: string, tag?: number): Promise<PaymentRow | undefined> {
  const conds = [eq(payments.depositAddress, address)];
  conds.push(tag === undefined ? isNull(payments.destinationTag) : eq(payments.destinationTag, tag));
  const [row] = await ex.select().from(payments).where(and(...conds)).orderBy(desc(payments.createdAt)).limit(1);
  return row;
}
