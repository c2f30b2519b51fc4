// One pass over a chain's open transfers, moving each one step along:
//   recorded → (prepare: funds, gas top-up, refusal) → signed: the signed bytes and nonce are
//   committed first → broadcast → sent → mined (receipt) → final at CONFIRMATIONS_<CHAIN>.
// A sent transaction the node lost is broadcast again (the same bytes); one left unmined is
// replaced with a higher fee and the same nonce; a refusal or a revert is tried again later
// (backoff), then given up (`failed`, reported to its settlement or payout), or given up at once
// when the family says no try can ever pass (a permanent refusal at preparation); one whose fee would
// take all it moves is `canceled` (reported too). A nonce is given back only when no node can have
// the transaction (refused at the broadcast right after its signing), so nothing is ever sent twice;
// one that may be out there is looked for, replaced under its nonce, or signed again once that
// nonce (on UTXO chains, one of its inputs) is used for good.
import type { Database, Executor } from '../../platform/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import { tokensOnChain, type TokenSymbol } from '../../tokens/index.ts';
import { recordAccountSetting, recordTransfer } from './intents.ts';
import { giveBackNonce, lockSender, takeNonce, type Sender } from './nonces.ts';
import { retryDelay } from './backoff.ts';
import type { AttemptRow, TransferRow } from './schema.ts';
import {
  activeTransfers, addAttempt, attemptsOf, feesPaid, heldForDeposits, markBroadcast, moveTransfer, openConsolidation, referenceSiblings, senderBusy, transferById,
} from './store.ts';
import { WAITING_FUNDS, type Inclusion, type PrepareContext, type Preparation, type TransferFamily, type TransferOutcomes } from './types.ts';

export const NOTE_NOT_OURS = 'the deposit address was not derived by this service';
export const NOTE_NONCE_TAKEN = 'its nonce was used by another transaction';
export const NOTE_INPUTS_TAKEN = 'an output it spends was spent by another transaction';

/** What a transfer another one waits for is called when it fails (`gas top-up failed: …`). */
const DEPENDENCY_WORDS: Readonly<Record<string, string>> = { gas_topup: 'gas top-up', consolidation: 'consolidation' };

export interface StepperOptions {
  confirmations: number;
  retryDelaysMs: readonly number[];
  /** Fee bumps of one transfer at most (each after the family's stuck time). */
  maxReplacements: number;
  /** Senders worked on at once in a pass. */
  concurrency: number;
}

type Attempts = Map<string, AttemptRow[]>;

export class ChainStepper {
  readonly family: TransferFamily;
  readonly #db: Database;
  readonly #outcomes: TransferOutcomes;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #opts: StepperOptions;
  readonly #wake: () => void;
  #settingsRecorded = false;

  constructor(db: Database, family: TransferFamily, outcomes: TransferOutcomes, clock: Clock, log: Logger, opts: StepperOptions, wake: () => void) {
    this.family = family;
    this.#db = db;
    this.#outcomes = outcomes;
    this.#clock = clock;
    this.#log = log.child({ chain: family.chain });
    this.#opts = opts;
    this.#wake = wake;
  }

  /** The hot wallets' account settings, recorded once (the first pass of each process makes sure). */
  async #recordSettings(): Promise<void> {
    const native = tokensOnChain(this.family.chain).find((d) => d.native)!.token;
    // live only: test-mode payments never reach a chain, and an unfunded wallet would wait for funds
    for (const reference of this.family.accountSettings?.(true) ?? []) {
      const fromAddress = this.family.hotAddress(true);
      if (await recordAccountSetting(this.#db.orm, { chain: this.family.chain, livemode: true, token: native, fromAddress, reference }, this.#now)) {
        this.#log.info({ reference }, 'hot wallet setting recorded');
      }
    }
    this.#settingsRecorded = true;
  }

  get #now(): Date {
    return this.#clock.now();
  }

  /** One pass; throws when the chain's node cannot be asked for its tip. */
  async pass(): Promise<void> {
    if (!this.#settingsRecorded) await this.#recordSettings();
    const rows = await activeTransfers(this.#db.orm, this.family.chain);
    if (rows.length === 0) return;
    const tip = await this.family.tip();
    const attempts = await attemptsOf(this.#db.orm, rows.map((r) => r.id));
    const senders = new Map<string, TransferRow[]>();
    for (const r of rows) {
      const key = `${r.livemode}:${r.fromAddress}`;
      const list = senders.get(key);
      if (list) list.push(r); else senders.set(key, [r]);
    }
    const queue = [...senders.values()];
    const worker = async () => {
      for (let list = queue.shift(); list; list = queue.shift()) await this.#sender(list, tip, attempts);
    };
    await Promise.all(Array.from({ length: Math.min(this.#opts.concurrency, queue.length) }, worker));
  }

  async #sender(list: TransferRow[], tip: bigint, attempts: Attempts): Promise<void> {
    for (let i = 0; i < list.length; i++) {
      try {
        const next = await this.#step(list, i, tip, attempts);
        if (next) list[i] = next;
      } catch (err) {
        // the node or the database failed us: this sender waits for the next pass, in order
        this.#log.warn({ transfer: list[i].id, err: (err as Error).message }, 'transfer step failed; tried again on the next pass');
        return;
      }
    }
  }

  #step(list: TransferRow[], i: number, tip: bigint, attempts: Attempts): Promise<TransferRow | undefined> {
    const t = list[i];
    switch (t.status) {
      case 'recorded': return this.#recorded(list, i, attempts);
      case 'signed': return this.#broadcast(t, attempts, tip);
      case 'sent': return this.#sent(t, tip, attempts);
      case 'mined': return this.#mined(t, tip);
      default: return Promise.resolve(undefined);
    }
  }

  // ---- recorded: prepare, then sign -------------------------------------------------------------

  async #recorded(list: TransferRow[], i: number, attempts: Attempts): Promise<TransferRow | undefined> {
    const t = list[i];
    if (t.nextAt > this.#now) return undefined;
    if (t.fromRole === 'deposit' && t.fromIndex === null) return this.#fail(this.#db.orm, t, NOTE_NOT_OURS, { giveUp: true });
    if (t.dependsOn) {
      const dep = await transferById(this.#db.orm, t.dependsOn);
      if (dep?.status === 'failed' || dep?.status === 'canceled') {
        return this.#fail(this.#db.orm, t, `${DEPENDENCY_WORDS[dep.purpose] ?? dep.purpose} failed: ${dep.lastError ?? dep.status}`, { set: { dependsOn: null } });
      }
      if (dep?.status !== 'mined' && dep?.status !== 'final') return undefined;
    }
    const others = list.filter((o) => o.id !== t.id);
    // A deposit address sends one transaction at a time, in order: each one's network fee is known
    // before the next is signed (a native coin's share pays the fees of those before it).
    if (t.fromRole === 'deposit' && (list.slice(0, i).some((o) => o.status !== 'mined') || others.some((o) => o.status === 'signed' || o.status === 'sent'))) return undefined;
    // One transaction per sender waits for a node to take it (its nonce may have to be given back).
    if (this.family.usesNonces && others.some((o) => o.status === 'signed')) return undefined;
    const ctx: PrepareContext = {
      feesPaidBefore: await feesPaid(this.#db.orm, t), unsentFromSender: list.slice(i).filter((o) => o.status === 'recorded'),
      ...(t.fromRole === 'deposit' ? { heldForDeposits: () => heldForDeposits(this.#db.orm, this.family.chain, t.livemode, t.fromAddress, this.#native) } : {}),
      ...(this.family.oneTransactionPerReference ? { siblings: await referenceSiblings(this.#db.orm, t) } : {}),
    };
    const prep = await this.family.prepare(t, ctx);
    switch (prep.kind) {
      case 'ready': {
        const signed = await this.#sign(t, prep);
        if (!signed) return undefined;
        attempts.set(t.id, [...(attempts.get(t.id) ?? []), signed.attempt]);
        return (await this.#broadcast(signed.row, attempts, null)) ?? signed.row;
      }
      case 'top_up': return this.#topUp(t, prep.amount);
      case 'consolidate': return this.#consolidate(t, prep);
      case 'no_funds':
        if (t.waiting === WAITING_FUNDS && t.lastError === prep.why) return undefined;
        if (t.waiting !== WAITING_FUNDS) this.#log.warn({ transfer: t.id, purpose: t.purpose, why: prep.why }, 'hot wallet needs funding');
        return moveTransfer(this.#db.orm, t, 'recorded', { waiting: WAITING_FUNDS, lastError: prep.why }, this.#now);
      case 'nothing_left': return this.#cancel(t, prep.why);
      // one that can never pass is given up now, as its last try would be (same report), not after 42 minutes of retries
      case 'refused': return this.#fail(this.#db.orm, t, prep.why, { giveUp: prep.permanent });
    }
  }

  async #sign(t: TransferRow, prep: Extract<Preparation, { kind: 'ready' }>): Promise<{ row: TransferRow; attempt: AttemptRow } | null> {
    const sender: Sender = { chain: this.family.chain, livemode: t.livemode, address: t.fromAddress };
    const onChain = this.family.usesNonces ? await this.family.chainNonce(t.fromAddress) : 0n;
    const now = this.#now;
    return this.#db.transaction(async (tx) => {
      const cur = await transferById(tx, t.id, true);
      if (cur?.status !== 'recorded') return null;
      let nonce: bigint | null = null;
      if (this.family.usesNonces) {
        const stored = await lockSender(tx, sender, onChain, now);
        if (await senderBusy(tx, t)) return null;
        nonce = await takeNonce(tx, sender, stored, onChain, now);
      }
      const signed = await prep.sign(nonce, tx);
      const attempt = await addAttempt(tx, t.id, signed, now);
      const row = await moveTransfer(tx, t, 'recorded', { status: 'signed', nonce, waiting: null, lastError: null }, now);
      return row ? { row, attempt } : null;
    });
  }

  /** The chain's own coin (gas top-ups, deposits a transfer's fee must not spend). */
  get #native(): TokenSymbol {
    return tokensOnChain(this.family.chain).find((d) => d.native)!.token;
  }

  /** The deposit address gets gas from the hot wallet first; the transfer waits for it to be mined. */
  async #topUp(t: TransferRow, amount: bigint): Promise<TransferRow | undefined> {
    const native = this.#native;
    const row = await this.#db.transaction(async (tx) => {
      const g = await recordTransfer(tx, {
        chain: this.family.chain, livemode: t.livemode, purpose: 'gas_topup', token: native, fromAddress: this.family.hotAddress(t.livemode),
        fromIndex: null, fromRole: 'hot', toAddress: t.fromAddress, amount, reference: t.id,
      }, this.#now);
      return moveTransfer(tx, t, 'recorded', { dependsOn: g.id, lastError: `waiting for a gas top-up of ${amount} base units of ${native}` }, this.#now);
    });
    this.#wake();
    return row;
  }

  /**
   * The hot wallet pays itself first (a consolidation of its smallest outputs), recorded with the
   * outputs it spends in the transaction that makes this transfer wait for it to be mined; then this
   * one is prepared again. One consolidation at a time per chain and mode: while one is open, this
   * transfer waits for it (it may be enough; if not, the next round is recorded once it is mined).
   */
  async #consolidate(t: TransferRow, prep: Extract<Preparation, { kind: 'consolidate' }>): Promise<TransferRow | undefined> {
    const hot = this.family.hotAddress(t.livemode);
    const row = await this.#db.transaction(async (tx) => {
      let dep = await openConsolidation(tx, this.family.chain, t.livemode);
      if (!dep) {
        dep = await recordTransfer(tx, {
          chain: this.family.chain, livemode: t.livemode, purpose: 'consolidation', token: this.#native, fromAddress: hot,
          fromIndex: null, fromRole: 'hot', toAddress: hot, amount: prep.amount, reference: t.id,
        }, this.#now);
        await prep.reserve(tx, dep.id);
        this.#log.info({ transfer: t.id, consolidation: dep.id, amount: String(prep.amount) }, 'hot wallet consolidation recorded');
      }
      return moveTransfer(tx, t, 'recorded', { dependsOn: dep.id, waiting: null, lastError: `waiting for a consolidation of the hot wallet: ${prep.why}` }, this.#now);
    });
    this.#wake();
    return row;
  }

  // ---- signed: broadcast ------------------------------------------------------------------------

  /**
   * `tip` null: the bytes were signed in this very call (before the pass read a tip), so no node can
   * have them yet. Any other signed transfer's may be out there: a broadcast whose answer was lost,
   * a process killed after a node took it, another process's broadcast. A refusal of those proves
   * nothing (a failover node, an expired transaction), so its nonce is never given back on one and
   * it is never signed again until it cannot be mined any more.
   */
  async #broadcast(t: TransferRow, attempts: Attempts, tip: bigint | null): Promise<TransferRow | undefined> {
    const mine = attempts.get(t.id) ?? [];
    const last = mine.at(-1);
    if (!last) return undefined;
    const now = this.#now;
    const mayBeOut = t.uncertain || tip !== null;
    // It can never be mined any more (XRP LastLedgerSequence, Tron expiration): mined already, or
    // lost for good; a lost one is replaced as a sent one is.
    if (mayBeOut && tip !== null && this.family.expired?.(last, tip)) {
      const inc = await this.family.inclusion(mine.map((a) => a.txId));
      if (inc) return this.#found(t, 'signed', inc, mine, tip);
      await markBroadcast(this.#db.orm, last, now);
      return moveTransfer(this.#db.orm, t, 'signed', { status: 'sent', waiting: null, lastError: 'its broadcast was lost and it expired: sent again' }, now);
    }
    const out = await this.family.broadcast(last.raw);
    const sender: Sender = { chain: this.family.chain, livemode: t.livemode, address: t.fromAddress };
    switch (out.kind) {
      case 'accepted':
        await markBroadcast(this.#db.orm, last, now);
        // a chain that mines at once (or a fast block) is looked at again right away
        this.#wake();
        return moveTransfer(this.#db.orm, t, 'signed', { status: 'sent', waiting: null, lastError: null }, now);
      case 'uncertain':
        return moveTransfer(this.#db.orm, t, 'signed', { uncertain: true, lastError: out.why }, now);
      case 'nonce_used': {
        const inc = await this.family.inclusion(mine.map((a) => a.txId));
        if (inc) return this.#found(t, 'signed', inc, mine, tip);
        // ours may still be somewhere while the block that used its nonce can be reorganised away
        if (mayBeOut && !(tip !== null && await this.#usedForGood(t, tip, mine))) {
          return moveTransfer(this.#db.orm, t, 'signed', { uncertain: true, lastError: out.why }, now);
        }
        // none of ours can be mined: the nonce went to another transaction, so this one is signed again with a new one
        return this.#signAgain(t, 'signed', NOTE_NONCE_TAKEN);
      }
      case 'no_funds':
      case 'refused':
        if (mayBeOut) {
          const inc = await this.family.inclusion(mine.map((a) => a.txId));
          if (inc) return this.#found(t, 'signed', inc, mine, tip);
          // a hot wallet short of funds says so (/admin/wallets), as one refused at its first broadcast does
          const waiting = out.kind === 'no_funds' && t.fromRole === 'hot' ? WAITING_FUNDS : null;
          const kept = await moveTransfer(this.#db.orm, t, 'signed', { uncertain: true, waiting, lastError: out.why }, now);
          if (!kept || out.kind !== 'refused' || !this.#stuck(last, now)) return kept;
          // refused because what it spends was spent for good by another transaction: signed again
          const taken = tip !== null ? await this.#usedForGood(kept, tip, mine) : null;
          if (taken) return this.#signAgain(kept, 'signed', taken);
          // refused for its fee (a base fee risen past its cap, a node's minimum), it would wait for
          // ever: after the stuck time it is replaced with a higher fee and the same nonce, so at
          // most one of the two is ever mined
          return (await this.#replace(kept, 'signed', last, mine, now)) ?? kept;
        }
        return this.#db.transaction(async (tx) => {
          if (t.nonce !== null && !(await giveBackNonce(tx, sender, t.nonce, now))) {
            this.#log.error({ transfer: t.id, nonce: String(t.nonce) }, 'a refused nonce could not be given back');
          }
          if (out.kind === 'refused') return this.#fail(tx, t, out.why, { from: 'signed' });
          return moveTransfer(tx, t, 'signed', {
            status: 'recorded', nonce: null, waiting: t.fromRole === 'hot' ? WAITING_FUNDS : null, lastError: out.why,
          }, now);
        });
    }
  }

  /** None of its transactions can be mined any more: back to `recorded`, to be signed with a new nonce (or other inputs). */
  #signAgain(t: TransferRow, from: 'signed' | 'sent', why: string): Promise<TransferRow | undefined> {
    return moveTransfer(this.#db.orm, t, from, { status: 'recorded', nonce: null, uncertain: false, lastError: why }, this.#now);
  }

  /**
   * Why none of the transfer's transactions can be mined any more, or null: the chain's count of
   * the sender's transactions at the final depth is past its nonce, or (UTXO) another transaction
   * at the final depth spends one of its inputs.
   */
  async #usedForGood(t: TransferRow, tip: bigint, mine: readonly AttemptRow[]): Promise<string | null> {
    const finalDepth = tip - BigInt(this.#opts.confirmations) + 1n;
    if (finalDepth < 0n) return null;
    if (!this.family.usesNonces) return (await this.family.spentElsewhere?.(mine, finalDepth)) ? NOTE_INPUTS_TAKEN : null;
    return t.nonce !== null && await this.family.chainNonce(t.fromAddress, finalDepth) > t.nonce ? NOTE_NONCE_TAKEN : null;
  }

  // ---- sent: mined yet? lost? stuck? ------------------------------------------------------------

  async #sent(t: TransferRow, tip: bigint, attempts: Attempts): Promise<TransferRow | undefined> {
    const mine = attempts.get(t.id) ?? [];
    const inc = await this.family.inclusion(mine.map((a) => a.txId));
    if (inc) return this.#found(t, 'sent', inc, mine, tip);
    const last = mine.at(-1);
    const now = this.#now;
    if (!last) return undefined;
    // one that can never be mined any more is replaced at once (nothing to wait for)
    const expired = this.family.expired?.(last, tip) ?? false;
    if (!expired && !this.#stuck(last, now)) return undefined;
    const taken = await this.#usedForGood(t, tip, mine);
    if (taken) {
      // none of ours is mined and another transaction took its nonce (or inputs) for good
      return this.#signAgain(t, 'sent', taken);
    }
    if (!expired && !(await this.family.known(last.txId))) {
      const out = await this.family.broadcast(last.raw);
      this.#log.info({ transfer: t.id, tx_id: last.txId, outcome: out.kind }, 'the node lost a sent transaction: broadcast again');
      await markBroadcast(this.#db.orm, last, now);
      return undefined;
    }
    return this.#replace(t, 'sent', last, mine, now);
  }

  /** Its last transaction has waited the family's stuck time since it was broadcast (or signed). */
  #stuck(last: AttemptRow, now: Date): boolean {
    return now.getTime() - (last.broadcastAt ?? last.createdAt).getTime() >= this.family.stuckAfterMs;
  }

  /**
   * Replaced with a higher fee and the same nonce (at most `maxReplacements` times), stored before
   * it is broadcast. A signed transfer whose replacement a node takes is `sent` from then on.
   */
  async #replace(t: TransferRow, from: 'signed' | 'sent', last: AttemptRow, mine: AttemptRow[], now: Date): Promise<TransferRow | undefined> {
    if (t.replacements >= this.#opts.maxReplacements) {
      // the stuck time starts again: warned once per stuck time
      await markBroadcast(this.#db.orm, last, now);
      // the sender and nonce an operator needs to release it (README "Sending on chain": a transaction
      // of their own that uses this nonce makes the worker sign this transfer again with a new one)
      this.#log.warn({ transfer: t.id, tx_id: last.txId, from: t.fromAddress, nonce: t.nonce === null ? null : String(t.nonce) },
        from === 'sent' ? 'a sent transaction stays unmined after its fee bumps' : 'a signed transaction stays refused after its fee bumps');
      return undefined;
    }
    const replacement = await this.family.replace(t, last, { feesPaidBefore: await feesPaid(this.#db.orm, t), unsentFromSender: [] });
    if (!replacement) {
      await markBroadcast(this.#db.orm, last, now);
      return undefined;
    }
    const stored = await this.#db.transaction(async (tx) => {
      const row = await moveTransfer(tx, t, from, { replacements: t.replacements + 1 }, now);
      return row ? { row, attempt: await addAttempt(tx, t.id, replacement, now) } : null;
    });
    if (!stored) return undefined;
    mine.push(stored.attempt);
    const out = await this.family.broadcast(replacement.raw);
    this.#log.info({ transfer: t.id, replaces: last.txId, tx_id: replacement.txId, outcome: out.kind }, 'transaction replaced with a higher fee');
    if (out.kind !== 'accepted') return stored.row;
    await markBroadcast(this.#db.orm, stored.attempt, now);
    if (from === 'sent') return stored.row;
    this.#wake();
    return (await moveTransfer(this.#db.orm, stored.row, 'signed', { status: 'sent', waiting: null, lastError: null }, now)) ?? stored.row;
  }

  /** Found in a block: counted, and final at once when it is deep enough already (a restart after a long stop). */
  async #found(t: TransferRow, from: 'signed' | 'sent', inc: Inclusion, mine: readonly AttemptRow[], tip: bigint | null): Promise<TransferRow | undefined> {
    const mined = await this.#markMined(t, from, inc, mine);
    return mined?.status === 'mined' && tip !== null ? (await this.#mined(mined, tip, inc)) ?? mined : mined;
  }

  /** One of the transfer's transactions is in a block: counted (or, reverted, its nonce and fee are spent). */
  async #markMined(t: TransferRow, from: 'signed' | 'sent', inc: Inclusion, mine: readonly AttemptRow[]): Promise<TransferRow | undefined> {
    const now = this.#now;
    if (!inc.ok) {
      const why = `transaction ${inc.txId} ${inc.failure ? `failed on chain: ${inc.failure}` : 'reverted'}`;
      return this.#db.transaction((tx) => this.#fail(tx, t, why, { from, set: { feesPaid: t.feesPaid + inc.feePaid } }));
    }
    const attempt = mine.find((a) => a.txId === inc.txId);
    return moveTransfer(this.#db.orm, t, from, {
      status: 'mined', txId: inc.txId, block: inc.block, minedFee: inc.feePaid, sentAmount: attempt?.value ?? null, waiting: null, lastError: null,
    }, now);
  }

  // ---- mined: final at the chain's confirmations (or back to sent after a reorganisation) --------

  async #mined(t: TransferRow, tip: bigint, known?: Inclusion): Promise<TransferRow | undefined> {
    const inc = known ?? await this.family.inclusion([t.txId!]);
    const now = this.#now;
    if (!inc) {
      this.#log.warn({ transfer: t.id, tx_id: t.txId }, 'a mined transfer left the best chain');
      return moveTransfer(this.#db.orm, t, 'mined', { status: 'sent', txId: null, block: null, minedFee: null }, now);
    }
    if (tip - inc.block + 1n < BigInt(this.#opts.confirmations)) {
      return inc.block === t.block ? undefined : moveTransfer(this.#db.orm, t, 'mined', { block: inc.block, minedFee: inc.feePaid }, now);
    }
    return this.#db.transaction(async (tx) => {
      const row = await moveTransfer(tx, t, 'mined', { status: 'final', block: inc.block, minedFee: inc.feePaid, finalAt: now }, now);
      if (row) await this.#outcomes.final(tx, row, now);
      return row;
    });
  }

  // ---- failures ---------------------------------------------------------------------------------

  /** Nothing to send (its fee takes it all): canceled, and reported in the same transaction as any transfer that stops being open. */
  async #cancel(t: TransferRow, why: string): Promise<TransferRow | undefined> {
    const now = this.#now;
    return this.#db.transaction(async (tx) => {
      const row = await moveTransfer(tx, t, 'recorded', { status: 'canceled', waiting: null, lastError: why }, now);
      if (row) await this.#outcomes.canceled(tx, row, why, now);
      return row;
    });
  }

  /** A failed try: tried again after the backoff, or given up and reported. */
  async #fail(ex: Executor, t: TransferRow, why: string, opts: { from?: 'recorded' | 'signed' | 'sent'; set?: Partial<TransferRow>; giveUp?: boolean } = {}): Promise<TransferRow | undefined> {
    const now = this.#now;
    const failures = t.failures + 1;
    const delay = opts.giveUp ? null : retryDelay(failures, this.#opts.retryDelaysMs);
    const common = { ...opts.set, failures, nonce: null, uncertain: false, waiting: null, lastError: why };
    const from = opts.from ?? 'recorded';
    if (delay !== null) {
      this.#log.warn({ transfer: t.id, purpose: t.purpose, failures, why }, 'transfer failed; tried again later');
      return moveTransfer(ex, t, from, { ...common, status: 'recorded', nextAt: new Date(now.getTime() + delay) }, now);
    }
    this.#log.error({ transfer: t.id, purpose: t.purpose, reference: t.reference, failures, why }, 'transfer given up');
    const report = async (tx: Executor) => {
      const row = await moveTransfer(tx, t, from, { ...common, status: 'failed' }, now);
      if (row) await this.#outcomes.failed(tx, row, why, now);
      return row;
    };
    return ex === this.#db.orm ? this.#db.transaction(report) : report(ex);
  }
}
