// What a chain watcher reads of the payments room: the live payments of a chain by deposit address
// (its index of watched addresses, and the payment a transfer goes to) and the deposits still
// counting confirmations. Only live payments: test mode never touches a chain.
import { and, asc, eq, gt, gte, inArray, isNotNull, max, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { deposits, payments } from './schema.ts';

export interface WatchedAddressRow {
  id: string;
  depositAddress: string;
  destinationTag: number | null;
  updatedAt: Date;
}

const liveOn = (chain: string) => and(eq(payments.chain, chain), eq(payments.livemode, true), sql`${payments.depositAddress} <> ''`);

const addressColumns = { id: payments.id, depositAddress: payments.depositAddress, destinationTag: payments.destinationTag, updatedAt: payments.updatedAt };

/** One page of the live deposit addresses of a chain, by payment id (the index is rebuilt page by page; only what it keys). */
export function watchedAddressPage(ex: Executor, chain: string, afterId: string, limit: number): Promise<Array<Omit<WatchedAddressRow, 'updatedAt'>>> {
  return ex.select({ id: payments.id, depositAddress: payments.depositAddress, destinationTag: payments.destinationTag })
    .from(payments).where(and(liveOn(chain), gt(payments.id, afterId))).orderBy(asc(payments.id)).limit(limit);
}

/** When a live payment of the chain last changed (where the index's top-ups start after a rebuild). */
export async function newestWatchedUpdate(ex: Executor, chain: string): Promise<Date | null> {
  const [row] = await ex.select({ at: max(payments.updatedAt) }).from(payments).where(liveOn(chain));
  return row?.at ? new Date(row.at) : null;
}

/** Live deposit addresses of a chain given or changed at or after `since`. */
export function watchedAddressesSince(ex: Executor, chain: string, since: Date): Promise<WatchedAddressRow[]> {
  return ex.select(addressColumns).from(payments).where(and(liveOn(chain), gte(payments.updatedAt, since)));
}

export interface AddressOwner {
  id: string;
  merchantId: string;
  depositAddress: string;
  destinationTag: number | null;
}

/** Live payments of a chain whose deposit address is `address` in any letter case (the caller compares the exact form). */
export function paymentsAtAddress(ex: Executor, chain: string, address: string): Promise<AddressOwner[]> {
  return ex.select({ id: payments.id, merchantId: payments.merchantId, depositAddress: payments.depositAddress, destinationTag: payments.destinationTag })
    .from(payments).where(and(liveOn(chain), sql`lower(${payments.depositAddress}) = ${address.toLowerCase()}`));
}

/**
 * Whether any payment, live or test, was handed one of these deposit addresses (exact forms: the
 * caller gives every form the address may be stored in; payments_by_address).
 */
export async function depositAddressGiven(ex: Executor, forms: readonly string[]): Promise<boolean> {
  if (forms.length === 0) return false;
  const [row] = await ex.select({ id: payments.id }).from(payments)
    .where(and(inArray(payments.depositAddress, [...forms]), sql`${payments.depositAddress} <> ''`)).limit(1);
  return row !== undefined;
}

export interface ChainDeposit {
  paymentId: string;
  merchantId: string;
  txId: string;
  status: string;
  block: number | null;
  confirmations: number;
  seenAt: Date;
  orphanedAt: Date | null;
}

const chainDepositColumns = {
  paymentId: deposits.paymentId, merchantId: payments.merchantId, txId: deposits.txId, status: deposits.status, block: deposits.block,
  confirmations: deposits.confirmations, seenAt: deposits.seenAt, orphanedAt: deposits.orphanedAt,
};

/** The live deposits of a chain still waiting to be final (or to fail). */
export function pendingChainDeposits(ex: Executor, chain: string): Promise<ChainDeposit[]> {
  return ex.select(chainDepositColumns).from(deposits).innerJoin(payments, eq(payments.id, deposits.paymentId))
    .where(and(eq(deposits.status, 'pending'), eq(deposits.simulated, false), eq(payments.chain, chain), eq(payments.livemode, true)));
}

/** The live deposits of a chain, pending or final, recorded in blocks above `height` (a reorganisation took those blocks). */
export function chainDepositsAbove(ex: Executor, chain: string, height: bigint): Promise<ChainDeposit[]> {
  return ex.select(chainDepositColumns).from(deposits).innerJoin(payments, eq(payments.id, deposits.paymentId))
    .where(and(
      inArray(deposits.status, ['pending', 'final']), eq(deposits.simulated, false), isNotNull(deposits.block),
      gt(deposits.block, Number(height)), eq(payments.chain, chain), eq(payments.livemode, true),
    ));
}
