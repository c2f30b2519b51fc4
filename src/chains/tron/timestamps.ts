// The raw_data timestamp of a Tron transaction, one per signing. A transaction's id is the SHA-256
// of its raw_data, and two transfers alike in everything it says (sender, recipient, amount; for a
// token the contract and fee limit) signed against the same reference block would otherwise be the
// same transaction: the node takes the first and answers DUP_TRANSACTION_ERROR to the second, one
// payment made for two. The timestamp is the one field free to tell them apart: each signing of a
// sender takes the service's time in ms, or one past the last one that sender took if that is later,
// so no two signings of one sender ever share it (and other senders' raw_data differ by their owner).
// It is taken under the sender's row in sender_nonces (a chain without nonces has no other use for
// it; `next_nonce` holds the next free timestamp there), in the transaction that stores the signed
// attempt: safe across processes and restarts. java-tron does not check the timestamp (only the
// expiration, against the head block); its own createtransaction puts its clock there too.
import type { Database, Executor } from '../../platform/db/index.ts';
import { lockSender, takeNonce, type Sender } from '../transfers/nonces.ts';

export interface TronTimestamps {
  /** A timestamp (ms) no signing of `sender` took before: `atLeast`, or later. Inside `tx` when given. */
  take(sender: Sender, atLeast: number, now: Date, tx?: Executor): Promise<number>;
}

/** Kept in the database (the service): one row per sender, locked while a timestamp is taken. */
export function dbTimestamps(db: Database): TronTimestamps {
  return {
    take(sender, atLeast, now, tx) {
      const take = async (ex: Executor) => {
        const floor = BigInt(atLeast);
        const next = await lockSender(ex, sender, floor, now);
        return Number(await takeNonce(ex, sender, next, floor, now));
      };
      // a replacement is signed outside the transaction that stores it: a timestamp taken and
      // never used is only skipped
      return tx ? take(tx) : db.transaction(take);
    },
  };
}

/** Kept in memory (one process, no database: the family's own tests). */
export function memoryTimestamps(): TronTimestamps {
  const next = new Map<string, number>();
  return {
    async take(sender, atLeast) {
      const key = `${sender.livemode}:${sender.address}`;
      const ts = Math.max(atLeast, next.get(key) ?? 0);
      next.set(key, ts + 1);
      return ts;
    },
  };
}
