// Deposit addresses derived on a worker thread (address-worker.ts), so the event loop serving
// requests does not spend its largest per-payment CPU cost on them. Same function, same seed, same
// address: only where it runs changes. One worker per process and mnemonic, started on first use
// and kept unreferenced while idle (it never holds a process open). If the worker cannot start or
// dies, addresses are derived inline from then on.
import { Worker } from 'node:worker_threads';
import type { Chain } from '../config.ts';
import { deriveDepositAddress, type WalletSeed } from '../chains/addresses/index.ts';

export interface DeriveRequest { id: number; chain: Chain; livemode: boolean; index: number }
export type DeriveReply = { id: number; address: string } | { id: number; error: string };

interface Waiting { resolve: (address: string) => void; reject: (err: Error) => void; req: DeriveRequest }

class DeriveWorker {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  broken = false;

  constructor(mnemonic: string) {
    this.#worker = new Worker(new URL('./address-worker.ts', import.meta.url), { workerData: { mnemonic } });
    this.#worker.unref();
    this.#worker.on('message', (r: DeriveReply) => {
      const w = this.#waiting.get(r.id);
      if (!w) return;
      this.#waiting.delete(r.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      if ('error' in r) w.reject(new Error(r.error));
      else w.resolve(r.address);
    });
    const fail = (err: unknown) => this.#fail(err instanceof Error ? err : new Error(String(err)));
    this.#worker.on('error', fail);
    this.#worker.on('exit', () => fail(new Error('address worker exited')));
  }

  derive(req: Omit<DeriveRequest, 'id'>): Promise<string> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const full = { id, ...req };
      this.#waiting.set(id, { resolve, reject, req: full });
      // Referenced while an answer is awaited, so a script waiting only on it is not cut short.
      this.#worker.ref();
      this.#worker.postMessage(full);
    });
  }

  /** Everything still waiting is handed back with an error; the caller derives it inline. */
  #fail(err: Error): void {
    this.broken = true;
    for (const w of this.#waiting.values()) w.reject(err);
    this.#waiting.clear();
  }
}

const workers = new Map<string, DeriveWorker>();

export class AddressDeriver {
  readonly #mnemonic: string;
  readonly #seed: WalletSeed;

  constructor(mnemonic: string, seed: WalletSeed) {
    this.#mnemonic = mnemonic;
    this.#seed = seed;
  }

  /** The deposit address number `index` of a chain in a mode: deriveDepositAddress's answer. */
  async depositAddress(chain: Chain, livemode: boolean, index: number): Promise<string> {
    const worker = this.#worker();
    if (worker) {
      try {
        return await worker.derive({ chain, livemode, index });
      } catch {
        // A refused index throws again below with its own message; a dead worker is replaced by inline work.
      }
    }
    return deriveDepositAddress(this.#seed, chain, livemode, index).address;
  }

  #worker(): DeriveWorker | null {
    let w = workers.get(this.#mnemonic);
    if (w?.broken) return null;
    if (!w) {
      try {
        w = new DeriveWorker(this.#mnemonic);
      } catch {
        return null;
      }
      workers.set(this.#mnemonic, w);
    }
    return w;
  }
}
