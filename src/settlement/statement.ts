// Reading the money: balances, the ledger (a page, or the whole statement as CSV streamed in
// keyset pages so memory stays flat however long it is) and settlements.
import { and, count, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { notFound } from '../platform/errors.ts';
import { ledgerEntries, settlements, type LedgerRow, type SettlementRow } from './schema.ts';
import { ledgerEntryJson } from './json.ts';

export const SETTLEMENT_NOT_FOUND = 'settlement not found';
export const CSV_COLUMNS = ['id', 'created_at', 'type', 'token', 'chain', 'amount', 'usd_amount', 'reference', 'note'] as const;
const CSV_PAGE = 2000;

export interface LedgerFilter { merchantId: string; livemode: boolean; token?: string }

const ledgerWhere = (f: LedgerFilter): SQL => and(
  eq(ledgerEntries.merchantId, f.merchantId), eq(ledgerEntries.livemode, f.livemode),
  ...(f.token ? [eq(ledgerEntries.token, f.token)] : []),
)!;

export async function ledgerPage(ex: Executor, f: LedgerFilter, limit: number, offset: number): Promise<{ entries: LedgerRow[]; total: number }> {
  const entries = await ex.select().from(ledgerEntries).where(ledgerWhere(f))
    .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.seq)).limit(limit).offset(offset);
  const [{ n }] = await ex.select({ n: count() }).from(ledgerEntries).where(ledgerWhere(f));
  return { entries, total: Number(n) };
}

/** RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled. */
export function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

export function csvLine(e: LedgerRow): string {
  const j = ledgerEntryJson(e) as Record<string, string | undefined>;
  return `${CSV_COLUMNS.map((c) => csvField(j[c] ?? '')).join(',')}\r\n`;
}

/** The whole statement, newest first, a page at a time (keyset on created_at, seq). */
export async function* ledgerCsv(ex: Executor, f: LedgerFilter): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let after: { createdAt: Date; seq: number } | null = null;
  for (;;) {
    const cursor: SQL | undefined = after
      ? or(lt(ledgerEntries.createdAt, after.createdAt), and(eq(ledgerEntries.createdAt, after.createdAt), lt(ledgerEntries.seq, after.seq)))
      : undefined;
    const rows: LedgerRow[] = await ex.select().from(ledgerEntries).where(and(ledgerWhere(f), ...(cursor ? [cursor] : [])))
      .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.seq)).limit(CSV_PAGE);
    if (rows.length === 0) return;
    let chunk = '';
    for (const r of rows) chunk += csvLine(r);
    yield chunk;
    const last = rows[rows.length - 1];
    after = { createdAt: last.createdAt, seq: last.seq };
    if (rows.length < CSV_PAGE) return;
  }
}

export interface SettlementFilter {
  merchantId: string;
  livemode: boolean;
  status?: string;
  paymentId?: string;
  mode?: string;
}

export async function settlementPage(ex: Executor, f: SettlementFilter, limit: number, offset: number): Promise<{ settlements: SettlementRow[]; total: number }> {
  const where = and(
    eq(settlements.merchantId, f.merchantId), eq(settlements.livemode, f.livemode),
    ...(f.status ? [eq(settlements.status, f.status)] : []), ...(f.paymentId ? [eq(settlements.paymentId, f.paymentId)] : []),
    ...(f.mode ? [eq(settlements.mode, f.mode)] : []),
  );
  const rows = await ex.select().from(settlements).where(where).orderBy(desc(settlements.createdAt), desc(settlements.id)).limit(limit).offset(offset);
  const [{ n }] = await ex.select({ n: count() }).from(settlements).where(where);
  return { settlements: rows, total: Number(n) };
}

/** A settlement of the merchant, either mode. */
export async function settlementById(ex: Executor, merchantId: string, id: string): Promise<SettlementRow> {
  const [row] = await ex.select().from(settlements).where(and(eq(settlements.id, id), eq(settlements.merchantId, merchantId)));
  if (!row) throw notFound(SETTLEMENT_NOT_FOUND);
  return row;
}
