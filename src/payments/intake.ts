// Deposit intake: what simulations report now and chain watchers later. A transfer is matched to
// its payment (by id, or by deposit address and XRP tag), recorded once per tx_id, and every change
// (seen, confirmations, final, failed, deadline) is one transaction: lock the payment, change the
// deposit, let applyChange decide, store with a compare-and-set, write the events.
import { and, eq } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Database, Executor } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { dec } from '../money/index.ts';
import { tokenDef, type TokenSymbol } from '../tokens/index.ts';
import { isPriced, noCurrentPrice, type MarketSource } from '../market/index.ts';
import { countdownRuns, depositUsdValue, isClosed, withinLateWindow, type PaymentStatus, type TokenInfo } from './pure.ts';
import { deposits, type DepositRow, type PaymentRow } from './schema.ts';
import { depositsOf, findByAddress, lockPayment } from './repository.ts';
import { applyAndStore } from './accounting.ts';
import { emitPaymentEvent, SOCKET_EVENTS } from './payment-events.ts';

export type PaymentRef = { paymentId: string } | { address: string; tag?: number };

export interface DepositReport {
  txId: string;
  token: TokenSymbol;
  /** Base units of `token`. */
  amount: bigint;
  confirmations: number;
  /** Default: the chain's CONFIRMATIONS_<CHAIN>. */
  confirmationsRequired?: number;
  sender?: string;
  block?: number;
  simulated?: boolean;
  /** When it was seen (the late window, `seen_at`). */
  at: Date;
  /** When it is recorded, if later than seen (a deposit that waited for its coin's price): the time of its events. */
  recordedAt?: Date;
}

export type IntakeResult =
  | { kind: 'recorded'; payment: PaymentRow; deposits: DepositRow[] }
  /** No payment takes it (unknown address, or past the late window): the chain room records it unmatched. */
  | { kind: 'unmatched' };

/** token_options of a payment with no coin, priced now (coin.ts optionsOf) through the caller's transaction. */
export type OptionsOf = (p: PaymentRow, now: Date, tx: Executor) => Promise<TokenInfo[]>;

export class DepositIntake {
  readonly #db: Database;
  readonly #config: Config;
  readonly #market: MarketSource;
  readonly #optionsOf: OptionsOf;

  constructor(db: Database, config: Config, market: MarketSource, optionsOf: OptionsOf = async () => []) {
    this.#db = db;
    this.#config = config;
    this.#market = market;
    this.#optionsOf = optionsOf;
  }

  /**
   * Another coin's deposit is valued at its current market price. Live, while that coin has no
   * current price, the deposit is not recorded (503, the transaction rolls back): the chain watcher
   * keeps it aside (deposits_awaiting_price) and records it, at a current price, once the coin has
   * one again.
   */
  #otherCoinRate(token: TokenSymbol, livemode: boolean) {
    const m = this.#market.snapshot(livemode)[token];
    if (!isPriced(m)) throw noCurrentPrice(token);
    return m.rate;
  }

  #inTx<T>(tx: Executor | undefined, fn: (tx: Executor) => Promise<T>): Promise<T> {
    return tx ? fn(tx) : this.#db.transaction(fn);
  }

  async #lock(tx: Executor, ref: PaymentRef): Promise<PaymentRow | undefined> {
    const id = 'paymentId' in ref ? ref.paymentId : (await findByAddress(tx, ref.address, ref.tag))?.id;
    return id ? lockPayment(tx, id) : undefined;
  }

  async #depositsOf(tx: Executor, id: string): Promise<DepositRow[]> {
    return (await depositsOf(tx, [id])).get(id) ?? [];
  }

  /** A transfer seen on chain (or simulated). Recording the same tx_id again changes nothing. */
  recordDeposit(ref: PaymentRef, r: DepositReport, tx?: Executor): Promise<IntakeResult> {
    return this.#inTx(tx, async (tx) => {
      const locked = await this.#lock(tx, ref);
      if (!locked || locked.token === '') return { kind: 'unmatched' };
      const existing = await this.#depositsOf(tx, locked.id);
      if (existing.some((d) => d.txId === r.txId)) return { kind: 'recorded', payment: locked, deposits: existing };
      // Seen at or after expires_at while the deadline's timer has not run yet (timers poll; a
      // watcher catching up may come first): the deadline passed before this money arrived, so it
      // closes the payment first and the deposit is a late one, as when the timer runs first.
      const p = countdownRuns(locked.status as PaymentStatus) && r.at.getTime() >= locked.expiresAt.getTime()
        ? (await applyAndStore(tx, locked, existing, { kind: 'deadline' }, r.recordedAt ?? r.at)).payment
        : locked;
      const closed = isClosed(p.status as PaymentStatus);
      if (closed && !withinLateWindow(p.expiresAt, r.at)) return { kind: 'unmatched' };
      const required = r.confirmationsRequired ?? this.#config.confirmations[tokenDef(r.token).chain];
      const rate = r.token === p.token ? dec(p.rateLocked ?? '0') : this.#otherCoinRate(r.token, p.livemode);
      const row: DepositRow = {
        id: newId('dep', r.at), paymentId: p.id, txId: r.txId, token: r.token, amount: r.amount,
        usdValue: depositUsdValue(r.token, r.amount, rate).toFixed(), counted: false,
        confirmations: r.confirmations, confirmationsRequired: required,
        status: r.confirmations >= required ? 'final' : 'pending',
        simulated: r.simulated ?? false, late: closed, sender: r.sender ?? null, block: r.block ?? null,
        seenAt: r.at, finalAt: r.confirmations >= required ? (r.recordedAt ?? r.at) : null, orphanedAt: null,
      };
      await tx.insert(deposits).values(row);
      const stored = await applyAndStore(tx, p, [...existing, row], { kind: 'deposit_seen', deposit: row.id }, r.recordedAt ?? r.at);
      return { kind: 'recorded', ...stored };
    });
  }

  /** New confirmation count of a deposit; final once it reaches the required count. */
  updateConfirmations(ref: PaymentRef, txId: string, confirmations: number, at: Date, tx?: Executor): Promise<IntakeResult> {
    return this.#inTx(tx, async (tx) => {
      const found = await this.#find(tx, ref, txId);
      if (!found) return { kind: 'unmatched' };
      const { p, deps, d } = found;
      if (d.status !== 'pending' || confirmations <= d.confirmations) return { kind: 'recorded', payment: p, deposits: deps };
      if (confirmations >= d.confirmationsRequired) return this.#final(tx, p, deps, d, at, confirmations);
      await tx.update(deposits).set({ confirmations }).where(eq(deposits.id, d.id));
      const next = deps.map((x) => (x.id === d.id ? { ...x, confirmations } : x));
      const stored = await applyAndStore(tx, p, next, { kind: 'deposit_confirmations', deposit: d.id }, at);
      await emitPaymentEvent(tx, SOCKET_EVENTS.confirmations, stored.payment, stored.deposits, at);
      return { kind: 'recorded', ...stored };
    });
  }

  /**
   * Where a deposit's transaction stands on chain now, as a chain watcher counts it: in block
   * `block` with `confirmations`, or (block null) back out of the best chain after a reorganisation
   * or still unmined: 0 confirmations, the payment keeps its status, and `orphaned_at` marks when it
   * left its block. Unlike updateConfirmations the count may go down; mined again it counts again.
   * Final at the required count. `payment.confirmations` on every new count.
   */
  setInclusion(ref: PaymentRef, txId: string, inc: { block: number | null; confirmations: number }, at: Date, tx?: Executor): Promise<IntakeResult> {
    return this.#inTx(tx, async (tx) => {
      const found = await this.#find(tx, ref, txId);
      if (!found) return { kind: 'unmatched' };
      const { p, deps, d } = found;
      const block = inc.block;
      const confirmations = block === null ? 0 : Math.max(0, inc.confirmations);
      if (d.status !== 'pending' || (block === d.block && confirmations === d.confirmations)) return { kind: 'recorded', payment: p, deposits: deps };
      const orphanedAt = block !== null ? null : d.block !== null ? at : d.orphanedAt;
      await tx.update(deposits).set({ block, orphanedAt }).where(eq(deposits.id, d.id));
      const moved = { ...d, block, orphanedAt };
      const withMoved = deps.map((x) => (x.id === d.id ? moved : x));
      let stored: { payment: PaymentRow; deposits: DepositRow[] };
      if (block !== null && confirmations >= d.confirmationsRequired) {
        const r = await this.#final(tx, p, withMoved, moved, at, confirmations);
        if (r.kind !== 'recorded') return r;
        stored = r;
      } else {
        await tx.update(deposits).set({ confirmations }).where(eq(deposits.id, d.id));
        const next = withMoved.map((x) => (x.id === d.id ? { ...x, confirmations } : x));
        stored = await applyAndStore(tx, p, next, { kind: 'deposit_confirmations', deposit: d.id }, at);
      }
      if (confirmations !== d.confirmations) await emitPaymentEvent(tx, SOCKET_EVENTS.confirmations, stored.payment, stored.deposits, at);
      return { kind: 'recorded', ...stored };
    });
  }

  markFinal(ref: PaymentRef, txId: string, at: Date, tx?: Executor): Promise<IntakeResult> {
    return this.#inTx(tx, async (tx) => {
      const found = await this.#find(tx, ref, txId);
      if (!found) return { kind: 'unmatched' };
      if (found.d.status !== 'pending') return { kind: 'recorded', payment: found.p, deposits: found.deps };
      return this.#final(tx, found.p, found.deps, found.d, at, Math.max(found.d.confirmations, found.d.confirmationsRequired));
    });
  }

  markFailed(ref: PaymentRef, txId: string, at: Date, tx?: Executor): Promise<IntakeResult> {
    return this.#inTx(tx, async (tx) => {
      const found = await this.#find(tx, ref, txId);
      if (!found) return { kind: 'unmatched' };
      const { p, deps, d } = found;
      if (d.status !== 'pending') return { kind: 'recorded', payment: p, deposits: deps };
      await tx.update(deposits).set({ status: 'failed' }).where(eq(deposits.id, d.id));
      const next = deps.map((x) => (x.id === d.id ? { ...x, status: 'failed' } : x));
      return { kind: 'recorded', ...(await applyAndStore(tx, p, next, { kind: 'deposit_failed', deposit: d.id }, at)) };
    });
  }

  /**
   * A failed deposit whose transaction is found in a block of the best chain after all: the money
   * arrived. A deposit fails on a conflict seen in the node's mempool (a replace-by-fee there) or
   * when its transaction was not seen for an hour, and either can be wrong: another miner may mine
   * the original instead of the replacement our node kept, or mine a transaction the node had
   * forgotten. It counts again from that block (a deposit seen anew: on a closed payment, a late
   * deposit), final at the required count. A deposit already final or pending is left alone.
   */
  revive(ref: PaymentRef, txId: string, inc: { block: number; confirmations: number }, at: Date, tx?: Executor): Promise<IntakeResult> {
    return this.#inTx(tx, async (tx) => {
      const found = await this.#find(tx, ref, txId);
      if (!found) return { kind: 'unmatched' };
      const { d } = found;
      if (d.status !== 'failed' || d.simulated) return { kind: 'recorded', payment: found.p, deposits: found.deps };
      // Found at or after expires_at while the deadline's timer has not run yet: as recordDeposit, the
      // deadline closes the payment first, so the money counts as a late deposit, not an on-time one.
      const { payment: p, deposits: deps } = countdownRuns(found.p.status as PaymentStatus) && at.getTime() >= found.p.expiresAt.getTime()
        ? await applyAndStore(tx, found.p, found.deps, { kind: 'deadline' }, at)
        : { payment: found.p, deposits: found.deps };
      // On a closed payment it is a late deposit (payment.late_deposit), and shows as one.
      const late = d.late || isClosed(p.status as PaymentStatus);
      const confirmations = Math.max(0, inc.confirmations);
      const back = { ...(deps.find((x) => x.id === d.id) ?? d), status: 'pending', block: inc.block, confirmations, orphanedAt: null, finalAt: null, late };
      await tx.update(deposits).set({ status: 'pending', block: inc.block, confirmations, orphanedAt: null, finalAt: null, late }).where(eq(deposits.id, d.id));
      const withBack = deps.map((x) => (x.id === d.id ? back : x));
      const seen = await applyAndStore(tx, p, withBack, { kind: 'deposit_seen', deposit: d.id }, at);
      if (confirmations >= d.confirmationsRequired) return this.#final(tx, seen.payment, seen.deposits, back, at, confirmations);
      return { kind: 'recorded', ...seen };
    });
  }

  /** The payment's deadline: expired or underpaid when it passed while waiting; otherwise nothing. */
  deadline(paymentId: string, now: Date, tx?: Executor): Promise<IntakeResult> {
    return this.#inTx(tx, async (tx) => {
      const p = await lockPayment(tx, paymentId);
      if (!p) return { kind: 'unmatched' };
      const deps = await this.#depositsOf(tx, p.id);
      // a payment that expires before its coin was chosen: its payment.expired carries the coins
      // GET /checkout/{token} lists, or the page rendering the socket's payment loses its coin list
      // (only while its countdown runs: a deadline run again on a closed payment raises nothing)
      const options = p.token === '' && countdownRuns(p.status as PaymentStatus) ? await this.#optionsOf(p, now, tx) : undefined;
      return { kind: 'recorded', ...(await applyAndStore(tx, p, deps, { kind: 'deadline' }, now, options)) };
    });
  }

  async #final(tx: Executor, p: PaymentRow, deps: DepositRow[], d: DepositRow, at: Date, confirmations: number): Promise<IntakeResult> {
    await tx.update(deposits).set({ status: 'final', confirmations, finalAt: at }).where(and(eq(deposits.id, d.id), eq(deposits.status, 'pending')));
    const next = deps.map((x) => (x.id === d.id ? { ...x, status: 'final', confirmations, finalAt: at } : x));
    return { kind: 'recorded', ...(await applyAndStore(tx, p, next, { kind: 'deposit_final', deposit: d.id }, at)) };
  }

  async #find(tx: Executor, ref: PaymentRef, txId: string): Promise<{ p: PaymentRow; deps: DepositRow[]; d: DepositRow } | undefined> {
    const p = await this.#lock(tx, ref);
    if (!p) return undefined;
    const deps = await this.#depositsOf(tx, p.id);
    const d = deps.find((x) => x.txId === txId);
    return d ? { p, deps, d } : undefined;
  }
}
