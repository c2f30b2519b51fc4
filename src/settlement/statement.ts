// Reading the money: balances, the ledger (a page, or the whole statement as CSV streamed in
// keyset pages so memory stays flat however long it is) and settlements.
import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../platform/db/index.ts';
import { formatUnits } from '../money/index.ts';
import { TOKEN_DEFS, isToken } from '../tokens/index.ts';
import { notFound } from '../platform/errors.ts';
import { ledgerEntries, settlements, type LedgerRow, type SettlementRow } from './schema.ts';
import { ledgerEntryJson, settlementJson } from './json.ts';

export const SETTLEMENT_NOT_FOUND = 'settlement not found';
export const SETTLEMENT_STATUSES = ['pending', 'completed', 'held', 'failed'] as const;
export const SETTLEMENT_STATUS_INVALID = `status must be one of ${SETTLEMENT_STATUSES.join(', ')}`;
/** The `settlement` filter of GET /merchant/settlements: where the money went (the settlement's `mode`). */
export const SETTLEMENT_MODES = ['direct', 'custodial'] as const;
export const SETTLEMENT_MODE_INVALID = `settlement must be one of ${SETTLEMENT_MODES.join(', ')}`;
export const CSV_COLUMNS = ['id', 'created_at', 'type', 'token', 'chain', 'amount', 'usd_amount', 'reference', 'note'] as const;
const CSV_PAGE = 5000;

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

/**
 * RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled. A field starting with
 * = + - @ (or a tab or CR) that is not a plain number is prefixed with a quote mark, as the
 * dashboard's own CSV does, so a spreadsheet never runs a note as a formula; negative amounts stay numbers.
 */
export function csvField(v: string): string {
  const s = /^[=+\-@\t\r]/.test(v) && !/^-?\d+(\.\d+)?$/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

interface CsvRow {
  cursor_seq: string; cursor_at: string; id: string; created_at: Date | string; type: string; token: string; chain: string;
  amount: string; usd_amount: string; reference: string; note: string | null;
}

function csvLine(r: CsvRow): string {
  const created = r.created_at instanceof Date ? r.created_at : new Date(r.created_at);
  const amount = formatUnits(BigInt(r.amount), isToken(r.token) ? TOKEN_DEFS[r.token].decimals : 0);
  const fields = [r.id, created.toISOString(), r.type, r.token, r.chain, amount, r.usd_amount === '-0' ? '0' : r.usd_amount, r.reference, r.note ?? ''];
  return `${fields.map(csvField).join(',')}\r\n`;
}

/**
 * The whole statement, newest first, a page at a time. Keyset paging on (created_at, seq) with a
 * row comparison the index answers directly; the cursor keeps the database's own timestamp text
 * so sub-millisecond times never skip a row (aliases differ from the column names: ORDER BY
 * would otherwise sort by the text output column). Figures are formatted by the database (trim_scale)
 * and here with plain string work: no Decimal per row.
 */
export async function* ledgerCsv(ex: Executor, f: LedgerFilter): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  const page = (after: { at: string; seq: string } | null): Promise<CsvRow[]> => queryRows<CsvRow>(ex, sql`
      select seq::text as cursor_seq, created_at::text as cursor_at, id, created_at, type, token, chain, amount::text as amount,
        trim_scale(usd_amount)::text as usd_amount, reference, note
      from ledger_entries
      where merchant_id = ${f.merchantId} and livemode = ${f.livemode}
        ${f.token ? sql`and token = ${f.token}` : sql``}
        ${after ? sql`and (created_at, seq) < (${after.at}::timestamptz, ${after.seq}::bigint)` : sql``}
      order by created_at desc, seq desc
      limit ${CSV_PAGE}`);
  let next: Promise<CsvRow[]> | null = page(null);
  while (next) {
    const rows: CsvRow[] = await next;
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    // the next page is read while this one is formatted and sent
    next = rows.length < CSV_PAGE ? null : page({ at: last.cursor_at, seq: last.cursor_seq });
    // a client that hangs up stops the generator; a read still running then must not go unhandled
    next?.catch(() => {});
    let chunk = '';
    for (const r of rows) chunk += csvLine(r);
    yield chunk;
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

/** Settlements across merchants for the operator, newest first (`status` one of SETTLEMENT_STATUSES). */
export async function settlementsForOperator(ex: Executor, status: string | undefined, limit: number, offset: number): Promise<{ settlements: SettlementRow[]; total: number }> {
  const where = status ? eq(settlements.status, status) : undefined;
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

/** A payment's settlements for its trail: `{settlement, transfers}` (transfer intents so far). */
export async function paymentSettlements(ex: Executor, paymentId: string): Promise<{ settlement: Record<string, unknown>; transfers: { intent_id: string }[] }[]> {
  const rows = await ex.select().from(settlements).where(eq(settlements.paymentId, paymentId)).orderBy(asc(settlements.createdAt), asc(settlements.id));
  return rows.map((s) => ({ settlement: settlementJson(s), transfers: (s.transferIntents ?? []).map((id) => ({ intent_id: id })) }));
}

/** A payment's ledger entries, in the order they were written. */
export async function paymentLedger(ex: Executor, paymentId: string): Promise<Record<string, unknown>[]> {
  const rows = await ex.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, paymentId)).orderBy(asc(ledgerEntries.seq));
  return rows.map(ledgerEntryJson);
}
