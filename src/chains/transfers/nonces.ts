// Nonces per sending address, kept in the database so parallel sends (and several processes) never
// hand one out twice. A nonce is taken under the sender row's lock in the transaction that stores
// the signed transaction, and only while no other transaction of that sender waits for a node to
// take it: so the nonce of a refused transaction is always the last handed out and is given back
// without leaving a gap.
// Tron has no nonces: its senders' rows hold the next free raw_data timestamp (tron/timestamps.ts).
import { and, eq, sql } from 'drizzle-orm';
import type { Chain } from '../../config.ts';
import type { Executor } from '../../platform/db/index.ts';
import { senderNonces } from './schema.ts';

export interface Sender { chain: Chain; livemode: boolean; address: string }

const where = (s: Sender) => and(eq(senderNonces.chain, s.chain), eq(senderNonces.livemode, s.livemode), eq(senderNonces.address, s.address));

/** Locks the sender's row (made at `onChain` on first use) until the transaction ends; returns its next nonce. */
export async function lockSender(tx: Executor, s: Sender, onChain: bigint, now: Date): Promise<bigint> {
  await tx.insert(senderNonces).values({ chain: s.chain, livemode: s.livemode, address: s.address, nextNonce: onChain, updatedAt: now })
    .onConflictDoNothing();
  const [row] = await tx.select({ next: senderNonces.nextNonce }).from(senderNonces).where(where(s)).for('update');
  return row.next;
}

/**
 * Takes the next nonce of a locked sender: at least `onChain` (the address's transactions in the
 * best chain), so a nonce used outside the service is never handed out again.
 */
export async function takeNonce(tx: Executor, s: Sender, stored: bigint, onChain: bigint, now: Date): Promise<bigint> {
  const nonce = stored > onChain ? stored : onChain;
  await tx.update(senderNonces).set({ nextNonce: nonce + 1n, updatedAt: now }).where(where(s));
  return nonce;
}

/** Gives back a nonce no node took (only while it is still the last one handed out); false when it was not. */
export async function giveBackNonce(tx: Executor, s: Sender, nonce: bigint, now: Date): Promise<boolean> {
  const rows = await tx.update(senderNonces).set({ nextNonce: nonce, updatedAt: now })
    .where(and(where(s), eq(senderNonces.nextNonce, sql`${(nonce + 1n).toString()}::bigint`))).returning({ next: senderNonces.nextNonce });
  return rows.length === 1;
}
