// Deposit addresses derived a block at a time on a worker thread (derive-worker.ts): one secp256k1
// multiplication per address is the largest CPU cost of creating a payment with a coin, and a
// block per message keeps the messaging cost per address small. Same function, same seed, same
// addresses: only where the work runs changes. The worker starts on the first block (that block
// is derived here meanwhile), is unreferenced while idle so it never holds a process open, and if
// it cannot start or dies, blocks are derived inline from then on.
import { Worker } from 'node:worker_threads';
import type { Chain } from '../../config.ts';
import { deriveDepositAddress, type WalletSeed } from './derive.ts';
import { liveNetworkOverrides } from './live-networks.ts';
import type { UtxoChain, UtxoNetworkKind } from './networks.ts';

export interface BlockRequest { id: number; chain: Chain; livemode: boolean; indexes: number[]; liveNetworks: Partial<Record<UtxoChain, UtxoNetworkKind>> }
export type BlockReply = { id: number; addresses: string[] } | { id: number; error: string };

interface Waiting { resolve: (addresses: string[]) => void; reject: (err: Error) => void }

export class DepositAddressDeriver {
  readonly #mnemonic: string;
  readonly #seed: WalletSeed;
  #worker: Worker | null = null;
  #ready = false;
  #broken = false;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #online: Promise<boolean> | null = null;
  /** Blocks the worker derived (the rest were derived inline). */
  blocksOffThread = 0;

  constructor(mnemonic: string, seed: WalletSeed) {
    this.#mnemonic = mnemonic;
    this.#seed = seed;
  }

  /** The deposit addresses of these indexes of a chain and mode, in the same order. */
  async block(chain: Chain, livemode: boolean, indexes: number[]): Promise<string[]> {
    if (this.#ready && !this.#broken) {
      try {
        const addresses = await this.#post({ id: this.#nextId++, chain, livemode, indexes, liveNetworks: liveNetworkOverrides() });
        this.blocksOffThread++;
        return addresses;
      } catch {
        // A refused index throws again below with its own message; a dead worker is replaced by inline work.
      }
    } else if (!this.#worker && !this.#broken) {
      this.#start();
    }
    return indexes.map((i) => deriveDepositAddress(this.#seed, chain, livemode, i).address);
  }

  /** Starts the worker if needed; true once it runs, false if it cannot (blocks are then derived inline). */
  ready(): Promise<boolean> {
    if (!this.#worker && !this.#broken) this.#start();
    return this.#online ?? Promise.resolve(false);
  }

  /** Stops the worker (tests and shutdown); later blocks are derived inline. */
  async close(): Promise<void> {
    this.#broken = true;
    const w = this.#worker;
    this.#worker = null;
    if (w) await w.terminate();
  }

  #start(): void {
    let w: Worker;
    try {
      w = new Worker(new URL('./derive-worker.ts', import.meta.url), { workerData: { mnemonic: this.#mnemonic } });
    } catch {
      this.#broken = true;
      return;
    }
    this.#worker = w;
    w.unref();
    this.#online = new Promise((resolve) => {
      w.once('online', () => { this.#ready = true; resolve(true); });
      w.once('error', () => resolve(false));
      w.once('exit', () => resolve(false));
    });
    w.on('message', (r: BlockReply) => {
      const waiting = this.#waiting.get(r.id);
      if (!waiting) return;
      this.#waiting.delete(r.id);
      if (this.#waiting.size === 0) w.unref();
      if ('error' in r) waiting.reject(new Error(r.error));
      else waiting.resolve(r.addresses);
    });
    const fail = (err: Error) => {
      this.#broken = true;
      for (const waiting of this.#waiting.values()) waiting.reject(err);
      this.#waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', () => fail(new Error('address worker exited')));
  }

  #post(req: BlockRequest): Promise<string[]> {
    const w = this.#worker!;
    return new Promise((resolve, reject) => {
      this.#waiting.set(req.id, { resolve, reject });
      // Referenced while an answer is awaited, so a script waiting only on it is not cut short.
      w.ref();
      w.postMessage(req);
    });
  }
}
