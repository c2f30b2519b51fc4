// The ledger and the balances it moves, always together in the caller's transaction: each balance
// row a change touches is locked first (SELECT … FOR UPDATE), so concurrent changes to one
// balance queue up and `available` always equals the sum of its ledger entries.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { appendEvent } from '../events/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { LedgerEntryPlan } from './ledger.ts';
import { balances, ledgerEntries, type BalanceRow, type LedgerRow } from './schema.ts';
import { balanceJson } from './json.ts';

export interface BalanceKey { merchantId: string; livemode: boolean }

/** Entries of a settlement name their payment (the payment's trail lists them). */
export interface PostOptions { paymentId?: string }

/** The balance row of a token, created empty when missing, locked until the transaction ends. */
export async function lockBalance(tx: Executor, key: BalanceKey, token: TokenSymbol, at: Date): Promise<BalanceRow> {
  await tx.insert(balances).values({
    merchantId: key.merchantId, livemode: key.livemode, token, chain: TOKEN_DEFS[token].chain,
    available: 0n, pendingPayout: 0n, updatedAt: at,
  }).onConflictDoNothing();
  const [row] = await tx.select().from(balances)
    .where(and(eq(balances.merchantId, key.merchantId), eq(balances.livemode, key.livemode), eq(balances.token, token)))
    .for('update');
  return row;
}

/** How an entry moves `pending_payout`: a hold puts its amount there, a release takes it back out. */
function pendingDelta(e: LedgerEntryPlan): bigint {
  if (e.type === 'payout_hold') return -e.amount;
  if (e.type === 'payout_release') return -e.amount;
  return 0n;
}

/**
 * Writes entries and moves the balances they touch. Tokens are locked in a fixed order so two
 * transactions touching the same balances never deadlock.
 */
export async function postEntries(tx: Executor, key: BalanceKey, entries: readonly LedgerEntryPlan[], at: Date, opts: PostOptions = {}): Promise<LedgerRow[]> {
  if (entries.length === 0) return [];
  const tokens = [...new Set(entries.map((e) => e.token))].sort();
  for (const token of tokens) {
    const mine = entries.filter((e) => e.token === token);
    const row = await lockBalance(tx, key, token, at);
    const available = row.available + mine.reduce((s, e) => s + e.amount, 0n);
    const pending = row.pendingPayout + mine.reduce((s, e) => s + pendingDelta(e), 0n);
    await tx.update(balances).set({ available, pendingPayout: pending, updatedAt: at })
      .where(and(eq(balances.merchantId, key.merchantId), eq(balances.livemode, key.livemode), eq(balances.token, token)));
  }
  // entries of one change share its time; listings break the tie by seq (write order)
  return tx.insert(ledgerEntries).values(entries.map((e) => ({
    id: newId('led', at), merchantId: key.merchantId, livemode: key.livemode, type: e.type, token: e.token,
    chain: e.chain, amount: e.amount, usdAmount: e.usd_amount, reference: e.reference, note: e.note ?? null, paymentId: opts.paymentId ?? null,
    createdAt: at,
  }))).returning();
}

/** A payout left for the wallet: its held amount leaves `pending_payout` (the hold already debited the ledger). */
export async function releasePending(tx: Executor, key: BalanceKey, token: TokenSymbol, amount: bigint, at: Date): Promise<void> {
  await lockBalance(tx, key, token, at);
  await tx.update(balances).set({ pendingPayout: sql`${balances.pendingPayout} - ${amount.toString()}::numeric`, updatedAt: at })
    .where(and(eq(balances.merchantId, key.merchantId), eq(balances.livemode, key.livemode), eq(balances.token, token)));
}

export async function listBalances(ex: Executor, key: BalanceKey): Promise<BalanceRow[]> {
  return ex.select().from(balances)
    .where(and(eq(balances.merchantId, key.merchantId), eq(balances.livemode, key.livemode)))
    .orderBy(asc(balances.token));
}

/** Dashboard socket `balance:update` {livemode, balances}, written with the change. */
export async function emitBalances(tx: Executor, key: BalanceKey, at: Date): Promise<void> {
  const rows = await listBalances(tx, key);
  await appendEvent(tx, {
    type: 'balance:update', livemode: key.livemode, merchantId: key.merchantId,
    data: { livemode: key.livemode, balances: rows.map(balanceJson) }, at,
  });
}
