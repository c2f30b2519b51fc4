// The transfer rows as the worker reads and moves them. Every move is a compare-and-set on the
// status it was read in: several processes may work on one chain and a lost race changes nothing.
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Chain } from '../../config.ts';
import { queryRows, type Executor } from '../../platform/db/index.ts';
import { outgoingAttempts, outgoingTransfers, type AttemptRow, type TransferRow } from './schema.ts';
import { ACTIVE_STATUSES, MAY_WAIT_FOR_FUNDS, WAITING_FUNDS, type SignedTx, type TransferStatus } from './types.ts';

/** At most this many transfers of a chain are looked at in one pass (in the order they were recorded). */
export const PASS_LIMIT = 1000;

export async function activeTransfers(ex: Executor, chain: Chain): Promise<TransferRow[]> {
  return ex.select().from(outgoingTransfers)
    .where(and(eq(outgoingTransfers.chain, chain), inArray(outgoingTransfers.status, [...ACTIVE_STATUSES])))
    .orderBy(asc(outgoingTransfers.seq)).limit(PASS_LIMIT);
}

/** Attempts of each transfer, oldest first. */
export async function attemptsOf(ex: Executor, ids: readonly string[]): Promise<Map<string, AttemptRow[]>> {
  const out = new Map<string, AttemptRow[]>();
  if (ids.length === 0) return out;
  const rows = await ex.select().from(outgoingAttempts).where(inArray(outgoingAttempts.transferId, [...ids]))
    .orderBy(asc(outgoingAttempts.transferId), asc(outgoingAttempts.n));
  for (const a of rows) {
    const list = out.get(a.transferId);
    if (list) list.push(a); else out.set(a.transferId, [a]);
  }
  return out;
}

export async function transferById(ex: Executor, id: string, lock = false): Promise<TransferRow | undefined> {
  const q = ex.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

/** Moves a transfer from `expected`; undefined when it was no longer there (another process moved it). */
export async function moveTransfer(ex: Executor, t: TransferRow, expected: TransferStatus, set: Partial<TransferRow>, now: Date): Promise<TransferRow | undefined> {
  const [row] = await ex.update(outgoingTransfers).set({ ...set, updatedAt: now })
    .where(and(eq(outgoingTransfers.id, t.id), eq(outgoingTransfers.status, expected))).returning();
  return row;
}

export async function addAttempt(ex: Executor, transferId: string, s: SignedTx, now: Date): Promise<AttemptRow> {
  const [{ n }] = await queryRows<{ n: number }>(ex, sql`select coalesce(max(n), 0)::int + 1 as n from outgoing_transfer_attempts where transfer_id = ${transferId}`);
  const [row] = await ex.insert(outgoingAttempts).values({
    transferId, n, txId: s.txId, raw: s.raw, nonce: s.nonce, value: s.value, fee: s.fee, feeReserve: s.feeReserve, createdAt: now, broadcastAt: null,
  }).returning();
  return row;
}

export async function markBroadcast(ex: Executor, a: AttemptRow, now: Date): Promise<void> {
  await ex.update(outgoingAttempts).set({ broadcastAt: now }).where(and(eq(outgoingAttempts.transferId, a.transferId), eq(outgoingAttempts.n, a.n)));
  a.broadcastAt = now;
}

/** Whether another transfer of this sender has a signed transaction no node took yet. */
export async function senderBusy(ex: Executor, t: TransferRow): Promise<boolean> {
  const rows = await ex.select({ id: outgoingTransfers.id }).from(outgoingTransfers).where(and(
    eq(outgoingTransfers.chain, t.chain), eq(outgoingTransfers.livemode, t.livemode), eq(outgoingTransfers.fromAddress, t.fromAddress),
    eq(outgoingTransfers.status, 'signed'), sql`${outgoingTransfers.id} <> ${t.id}`,
  )).limit(1);
  return rows.length > 0;
}

/** Network fees already paid by the transfers of a reference from one address (mined, or reverted). */
export async function feesPaid(ex: Executor, t: TransferRow): Promise<bigint> {
  const [{ sum }] = await queryRows<{ sum: string | null }>(ex, sql`
    select sum(fees_paid + coalesce(mined_fee, 0))::text as sum from outgoing_transfers
    where reference = ${t.reference} and from_address = ${t.fromAddress}`);
  return BigInt(sum ?? '0');
}

/**
 * The native coin at a deposit address that belongs to customers' deposits no transfer moves yet
 * (still confirming, or final while their settlement has recorded none): it is theirs to be settled,
 * never gas for another transfer from that address.
 */
export async function heldForDeposits(ex: Executor, chain: Chain, livemode: boolean, address: string, nativeToken: string): Promise<bigint> {
  const [{ sum }] = await queryRows<{ sum: string | null }>(ex, sql`
    select sum(d.amount)::text as sum from deposits d join payments p on p.id = d.payment_id
    where p.chain = ${chain} and p.livemode = ${livemode} and p.deposit_address = ${address} and d.token = ${nativeToken}
      and d.simulated = false and d.status in ('pending', 'final')
      and not exists (
        select 1 from settlement_deposits sd join outgoing_transfers o on o.reference = sd.settlement_id
        where sd.payment_id = d.payment_id and sd.tx_id = d.tx_id)`);
  return BigInt(sum ?? '0');
}

/**
 * What the transfers of a reference burnt in all (mined fees and the fees of reverted tries, with
 * their gas top-ups from the hot wallet), and whether every one of them is final or given up: only
 * then is the sum what the reference cost.
 */
export async function referenceBurnt(ex: Executor, reference: string): Promise<{ burnt: bigint; settled: boolean }> {
  const [r] = await queryRows<{ sum: string | null; open: number }>(ex, sql`
    with own as (select * from outgoing_transfers where reference = ${reference}),
    gas as (select g.* from outgoing_transfers g join own o on g.reference = o.id and g.purpose = 'gas_topup')
    select sum(fees_paid + coalesce(mined_fee, 0))::text as sum,
      count(*) filter (where status not in ('final', 'failed', 'canceled'))::int as open
    from (select * from own union all select * from gas) t`);
  return { burnt: BigInt(r.sum ?? '0'), settled: r.open === 0 };
}

/**
 * The consolidation of a chain's hot wallet in a mode not yet mined, if any (there is one at a time),
 * locked until `ex`'s transaction ends. A mined one's outputs are spent: the next round may start.
 */
export async function openConsolidation(ex: Executor, chain: Chain, livemode: boolean): Promise<TransferRow | undefined> {
  const [row] = await ex.select().from(outgoingTransfers).where(and(
    eq(outgoingTransfers.chain, chain), eq(outgoingTransfers.livemode, livemode), eq(outgoingTransfers.purpose, 'consolidation'),
    inArray(outgoingTransfers.status, ['recorded', 'signed', 'sent']),
  )).orderBy(asc(outgoingTransfers.seq)).limit(1).for('update');
  return row;
}

/** Hot wallets with a consolidation not yet mined (their smallest outputs being joined), as `chain:livemode`. */
export function walletsConsolidating(ex: Executor): Promise<Set<string>> {
  return walletsWith(ex, and(eq(outgoingTransfers.purpose, 'consolidation'), inArray(outgoingTransfers.status, ['recorded', 'signed', 'sent']))!);
}

/** Hot wallets with a transfer waiting for funds, as `chain:livemode`. */
export function walletsWaitingForFunds(ex: Executor): Promise<Set<string>> {
  return walletsWith(ex, and(inArray(outgoingTransfers.status, [...MAY_WAIT_FOR_FUNDS]), eq(outgoingTransfers.waiting, WAITING_FUNDS), eq(outgoingTransfers.fromRole, 'hot'))!);
}

/** The wallets (`chain:livemode`) of the transfers that match `where`. */
async function walletsWith(ex: Executor, where: SQL): Promise<Set<string>> {
  const rows = await ex.selectDistinct({ chain: outgoingTransfers.chain, livemode: outgoingTransfers.livemode }).from(outgoingTransfers).where(where);
  return new Set(rows.map((r) => `${r.chain}:${r.livemode}`));
}

/** The other transfers of `t`'s reference from the same address, with their attempts (oldest first). */
export async function referenceSiblings(ex: Executor, t: TransferRow): Promise<Array<{ row: TransferRow; attempts: AttemptRow[] }>> {
  const rows = await ex.select().from(outgoingTransfers).where(and(
    eq(outgoingTransfers.reference, t.reference), eq(outgoingTransfers.chain, t.chain), eq(outgoingTransfers.fromAddress, t.fromAddress),
    sql`${outgoingTransfers.id} <> ${t.id}`,
  )).orderBy(asc(outgoingTransfers.seq));
  const attempts = await attemptsOf(ex, rows.map((r) => r.id));
  return rows.map((row) => ({ row, attempts: attempts.get(row.id) ?? [] }));
}
