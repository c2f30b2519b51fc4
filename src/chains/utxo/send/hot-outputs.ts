// The Bitcoin-family hot wallets' unspent outputs as the service tracks them (migrations/
// 0650_utxo_hot_outputs.sql): recorded when a transaction paying the hot wallet is mined or when
// the node's UTXO set shows one, reserved by the transfer that spends them in the transaction that
// stores its signed bytes. An output is free when no transfer holds it, or the one holding it was
// given up (failed, canceled).
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { boolean, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, baseUnits, queryRows, type Database, type Executor } from '../../../platform/db/index.ts';
import type { UtxoChain } from '../../addresses/index.ts';

export const utxoHotOutputs = pgTable('utxo_hot_outputs', {
  chain: text('chain').notNull(),
  livemode: boolean('livemode').notNull(),
  txid: text('txid').notNull(),
  vout: integer('vout').notNull(),
  amount: baseUnits('amount').notNull(),
  height: integer('height'),
  spentBy: text('spent_by'),
  createdAt: at('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.chain, t.txid, t.vout] })]);

/** An output: the transaction that made it and its index there. */
export interface Outpoint { txid: string; vout: number }

export interface HotOutput extends Outpoint {
  amount: bigint;
  /** Block height (null: not known). */
  height: number | null;
}

/** Transfer statuses whose transaction may spend (or spent) what they hold. */
const HOLDING = ['recorded', 'signed', 'sent', 'mined', 'final'] as const;
const HOLDING_LIST = sql.join(HOLDING.map((s) => sql`${s}`), sql`, `);

/** `o` (the output row) is one of `outs`: they travel as one JSON parameter. */
const among = (outs: readonly Outpoint[]): SQL =>
  sql`exists (select 1 from jsonb_to_recordset(${JSON.stringify(outs.map((x) => ({ txid: x.txid, vout: x.vout })))}::jsonb) as k(txid text, vout integer) where k.txid = o.txid and k.vout = o.vout)`;

export class HotOutputs {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  get db(): Database {
    return this.#db;
  }

  /** Records outputs paying the hot wallet; one known already is left as it is. */
  async add(chain: UtxoChain, livemode: boolean, outs: readonly HotOutput[], now: Date): Promise<void> {
    if (outs.length === 0) return;
    await this.#db.orm.insert(utxoHotOutputs)
      .values(outs.map((o) => ({ chain, livemode, txid: o.txid, vout: o.vout, amount: o.amount, height: o.height, spentBy: null, createdAt: now })))
      .onConflictDoNothing();
  }

  /**
   * The outputs `transferId` may spend: free ones and those it holds itself (its earlier try the
   * node refused), oldest first; null: the free ones only. With `lock`, they stay locked until
   * `ex`'s transaction ends, so a parallel send waits and then finds them taken.
   */
  async free(ex: Executor, chain: UtxoChain, livemode: boolean, transferId: string | null, lock = false): Promise<HotOutput[]> {
    const rows = await queryRows<{ txid: string; vout: number; amount: string; height: number | null }>(ex, sql`
      select o.txid, o.vout, o.amount::text as amount, o.height from utxo_hot_outputs o
      left join outgoing_transfers t on t.id = o.spent_by
      where o.chain = ${chain} and o.livemode = ${livemode}
        and (o.spent_by is null or o.spent_by = ${transferId} or t.id is null or t.status not in (${HOLDING_LIST}))
      order by o.height asc nulls last, o.txid, o.vout
      ${lock ? sql`for update of o` : sql``}`);
    return rows.map((r) => ({ txid: r.txid, vout: r.vout, amount: BigInt(r.amount), height: r.height }));
  }

  /**
   * `transferId` now holds exactly `outs` (what it held before is let go). Two statements however
   * many outputs: it runs in the transaction that stores the spend, which holds the wallet's free
   * outputs locked meanwhile, and a consolidation spends over a thousand.
   */
  async reserve(ex: Executor, chain: UtxoChain, transferId: string, outs: readonly Outpoint[]): Promise<void> {
    await ex.update(utxoHotOutputs).set({ spentBy: null }).where(and(eq(utxoHotOutputs.chain, chain), eq(utxoHotOutputs.spentBy, transferId)));
    if (outs.length === 0) return;
    await ex.execute(sql`
      update utxo_hot_outputs o set spent_by = ${transferId}
      from jsonb_to_recordset(${JSON.stringify(outs.map((x) => ({ txid: x.txid, vout: x.vout })))}::jsonb) as k(txid text, vout integer)
      where o.chain = ${chain} and o.txid = k.txid and o.vout = k.vout`);
  }

  /**
   * Lets go of what `transferId` held for an earlier try the node refused (nothing of it is out
   * there), while it is still `recorded`. A parallel pass may have signed it since this one read it
   * (the output its transaction spends then looks spent, and this pass finds nothing to spend): its
   * row is locked first, so a signing in flight is waited for, and a transfer past `recorded` keeps
   * what its transaction spends.
   */
  async releaseUnsigned(chain: UtxoChain, transferId: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const [row] = await queryRows<{ status: string }>(tx, sql`select status from outgoing_transfers where id = ${transferId} for update`);
      if (row?.status === 'recorded') await this.reserve(tx, chain, transferId, []);
    });
  }

  /** What the hot wallet holds: every tracked output no transaction of ours spends yet (those a recorded transfer reserved included). */
  async balance(chain: UtxoChain, livemode: boolean): Promise<bigint> {
    const [{ sum }] = await queryRows<{ sum: string | null }>(this.#db.orm, sql`
      select sum(o.amount)::text as sum from utxo_hot_outputs o left join outgoing_transfers t on t.id = o.spent_by
      where o.chain = ${chain} and o.livemode = ${livemode}
        and (o.spent_by is null or t.id is null or t.status not in ('signed', 'sent', 'mined', 'final'))`);
    return BigInt(sum ?? '0');
  }

  /** An output spent for good by a transaction that is not ours (it no longer counts in the balance). */
  async forget(chain: UtxoChain, o: Outpoint): Promise<void> {
    await this.#db.orm.delete(utxoHotOutputs).where(and(eq(utxoHotOutputs.chain, chain), eq(utxoHotOutputs.txid, o.txid), eq(utxoHotOutputs.vout, o.vout)));
  }

  /**
   * Forgets the free outputs (as `free` says: no transfer holds them, or only one given up) of
   * blocks up to `height` that the node's UTXO set, scanned at that height, no longer has: spent by
   * a transaction that is not ours, or gone with their block (a scan after it comes back finds them
   * again). Those a transfer holds stay: its own transaction spends them.
   */
  async forgetMissing(chain: UtxoChain, livemode: boolean, unspent: readonly Outpoint[], height: number): Promise<void> {
    await this.#forgetFreeWhere(chain, livemode, sql`o.height is not null and o.height <= ${height} and not ${among(unspent)}`);
  }

  /**
   * Forgets those of `outs` that are still free (as `free` says): spent by a transaction that is not
   * ours. One a transfer took meanwhile stays: its own transaction spends it.
   */
  async forgetFree(chain: UtxoChain, livemode: boolean, outs: readonly Outpoint[]): Promise<void> {
    if (outs.length > 0) await this.#forgetFreeWhere(chain, livemode, among(outs));
  }

  /** Deletes the outputs of a chain and mode that match `where` and no transfer holds (checked in the same statement). */
  async #forgetFreeWhere(chain: UtxoChain, livemode: boolean, where: SQL): Promise<void> {
    await this.#db.orm.execute(sql`
      delete from utxo_hot_outputs o
      where o.chain = ${chain} and o.livemode = ${livemode} and ${where}
        and not exists (select 1 from outgoing_transfers t where t.id = o.spent_by and t.status in (${HOLDING_LIST}))`);
  }

  /** The outputs one transfer holds, with their amounts (a consolidation's, reserved when it was recorded), oldest first. */
  async of(ex: Executor, chain: UtxoChain, transferId: string): Promise<HotOutput[]> {
    const rows = await ex.select().from(utxoHotOutputs).where(and(eq(utxoHotOutputs.chain, chain), eq(utxoHotOutputs.spentBy, transferId)))
      .orderBy(utxoHotOutputs.height, utxoHotOutputs.txid, utxoHotOutputs.vout);
    return rows.map((r) => ({ txid: r.txid, vout: r.vout, amount: r.amount, height: r.height }));
  }

  /** The outputs a transfer holds. */
  async heldBy(ex: Executor, transferIds: readonly string[]): Promise<Array<{ txid: string; vout: number; spentBy: string }>> {
    if (transferIds.length === 0) return [];
    const rows = await ex.select({ txid: utxoHotOutputs.txid, vout: utxoHotOutputs.vout, spentBy: utxoHotOutputs.spentBy }).from(utxoHotOutputs)
      .where(inArray(utxoHotOutputs.spentBy, [...transferIds]));
    return rows.map((r) => ({ txid: r.txid, vout: r.vout, spentBy: r.spentBy! }));
  }
}
