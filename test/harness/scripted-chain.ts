// A chain family whose answers the test scripts (nonces, broadcasts, blocks, the pool), for the
// transfer stepper's tests on a real database. It can also stand for a process killed at a chosen
// point: `crashNext` makes the next broadcast throw (a kill rolls back an open transaction the same
// way), before or after the node took the transaction.
import { uid } from './accounts.ts';
import type { AttemptRow, TransferRow } from '../../src/chains/transfers/schema.ts';
import type { BroadcastOutcome, Inclusion, Preparation, SignedTx, TransferFamily } from '../../src/chains/transfers/types.ts';

/** Thrown where the scripted process dies. */
export class Crash extends Error {
  constructor(where: string) { super(`crashed ${where}`); }
}

export class ScriptedChain implements TransferFamily {
  readonly chain = 'ethereum' as const;
  /** False: a chain of outputs (UTXO), whose lost transfers `spentAt` releases instead of a nonce. */
  usesNonces = true;
  /** The block in which another transaction spent the transfers' inputs (chains without nonces); none when null. */
  spentAt: bigint | null = null;
  readonly stuckAfterMs: number;
  height = 100n;
  /** Transactions of the sender in the best chain, as of a block (the latest when none). */
  nonce: (at?: bigint) => bigint = () => 0n;
  included = new Map<string, Inclusion>();
  known = async (txId: string) => this.pool.has(txId);
  pool = new Set<string>();
  next: BroadcastOutcome[] = [];
  /** What the next preparations answer (then ready, as by default). */
  prepared: Preparation[] = [];
  broadcasts: string[] = [];
  signed: SignedTx[] = [];
  /** Runs before a transfer is prepared (another process's pass slipping in, say). */
  onPrepare: ((t: TransferRow) => Promise<void>) | null = null;
  /** The last ledger or block a transaction can be mined in (XRP, Tron), for every transaction; none when null. */
  expiresAfter: bigint | null = null;
  /** The next signature throws (the process dies while signing). */
  crashSigning = false;
  #crash: 'before-node' | 'after-node' | null = null;
  readonly hot: string;

  constructor(hot: string, stuckAfterMs: number) {
    this.hot = hot;
    this.stuckAfterMs = stuckAfterMs;
  }

  /** The next broadcast dies: before the node hears of it, or after the node took it (the answer lost). */
  crashNext(when: 'before-node' | 'after-node'): void {
    this.#crash = when;
  }

  hotAddress(): string { return this.hot; }
  async tip(): Promise<bigint> { return this.height; }
  async chainNonce(_address: string, at?: bigint): Promise<bigint> { return this.nonce(at); }
  async spentElsewhere(_attempts: readonly AttemptRow[], finalHeight: bigint): Promise<boolean> {
    return this.spentAt !== null && this.spentAt <= finalHeight;
  }

  #sign(t: TransferRow, nonce: bigint | null, fee: bigint): SignedTx {
    if (this.crashSigning) {
      this.crashSigning = false;
      throw new Crash('while signing');
    }
    const s: SignedTx = { txId: `0x${uid()}`, raw: `raw:${t.id}:${nonce}:${fee}`, nonce, value: t.amount, fee: { maxFeePerGas: String(fee) }, feeReserve: fee };
    this.signed.push(s);
    return s;
  }

  async prepare(t: TransferRow): Promise<Preparation> {
    await this.onPrepare?.(t);
    const scripted = this.prepared.shift();
    if (scripted) return scripted;
    return { kind: 'ready', sign: async (nonce) => this.#sign(t, nonce, 10n) };
  }

  async replace(t: TransferRow, last: AttemptRow): Promise<SignedTx> {
    return this.#sign(t, last.nonce, last.feeReserve * 2n);
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    this.broadcasts.push(raw);
    const crash = this.#crash;
    this.#crash = null;
    if (crash === 'before-node') throw new Crash('before the node heard of the broadcast');
    if (crash === 'after-node') {
      this.pool.add(this.#txId(raw));
      throw new Crash('after the node took the broadcast');
    }
    const out = this.next.shift() ?? { kind: 'accepted' };
    if (out.kind === 'accepted') this.pool.add(this.#txId(raw));
    return out;
  }

  #txId(raw: string): string {
    return this.signed.find((s) => s.raw === raw)!.txId;
  }

  expired(_last: AttemptRow, tip: bigint): boolean {
    return this.expiresAfter !== null && tip > this.expiresAfter;
  }

  async inclusion(txIds: readonly string[]): Promise<Inclusion | null> {
    for (const id of txIds) {
      const inc = this.included.get(id);
      if (inc) return inc;
    }
    return null;
  }

  /** Mines a signed transaction in `block` (it leaves the pool). */
  mine(s: SignedTx, block: bigint, feePaid = 21_000n): void {
    this.pool.delete(s.txId);
    this.included.set(s.txId, { txId: s.txId, block, ok: true, feePaid });
  }
}
