// The transfer worker: a pass over every chain's open transfers, woken as soon as a transaction that
// recorded a transfer commits (a settlement in the outbox's dispatch, a payout's approval, an
// operator's retry), and at least every `pollMs`. Passes of several processes may overlap: every
// move is a compare-and-set and nonces are taken under a lock.
import type { Chain } from '../../config.ts';
import type { Platform } from '../../platform/context.ts';
import type { Subscriber } from '../../events/index.ts';
import { CoalescedRun } from '../../platform/coalesced-run.ts';
import type { WalletKeys } from '../wallets/keys.ts';
import { ChainTransferPort } from './intents.ts';
import { ChainStepper, type StepperOptions } from './stepper.ts';
import { DEFAULT_RETRY_DELAYS_MS } from './backoff.ts';
import { settlementOutcomes, type RatesOf } from './outcomes.ts';
import { walletsConsolidating, walletsWaitingForFunds } from './store.ts';
import type { ServiceFeePort } from '../../settlement/index.ts';
import type { TransferFamily } from './types.ts';

export interface TransferServiceOptions {
  pollMs: number;
  retryDelaysMs?: readonly number[];
  maxReplacements?: number;
  concurrency?: number;
}

export class TransferService {
  readonly port: ChainTransferPort;
  readonly #platform: Platform;
  readonly #steppers: ChainStepper[];
  readonly #pollMs: number;
  readonly #run = new CoalescedRun(() => this.#pass(), () => this.#stopped);
  readonly #down = new Set<Chain>();
  #stopped = true;
  #recorded = false;
  #timer: NodeJS.Timeout | null = null;
  #unlisten: (() => void) | null = null;
  #rates: RatesOf | null = null;
  #fees: ServiceFeePort | null = null;

  constructor(platform: Platform, keys: WalletKeys, families: readonly TransferFamily[], opts: TransferServiceOptions) {
    this.#platform = platform;
    this.#pollMs = opts.pollMs;
    const chains = new Set(families.map((f) => f.chain));
    this.port = new ChainTransferPort(keys, () => chains, () => platform.clock.now(), () => { this.#recorded = true; });
    const outcomes = settlementOutcomes(platform.log, () => this.#rates, () => this.#fees);
    this.#steppers = families.map((f) => {
      const o: StepperOptions = {
        confirmations: platform.config.confirmations[f.chain], retryDelaysMs: opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
        maxReplacements: opts.maxReplacements ?? 5, concurrency: opts.concurrency ?? 4,
      };
      return new ChainStepper(platform.db, f, outcomes, platform.clock, platform.log, o, () => this.kick());
    });
  }

  /** The market plugs its rates in (created after the chain room, from its fee quotes). */
  useRates(rates: RatesOf): void {
    this.#rates = rates;
  }

  /** The referral program plugs its commissions in: told of a settlement's service fee once it is final at completion. */
  useServiceFees(port: ServiceFeePort | null): void {
    this.#fees = port;
  }

  /** The chains transfers can be made on (a family with a node). */
  get chains(): Chain[] {
    return this.#steppers.map((s) => s.family.chain);
  }

  /** Wakes the worker after an outbox batch that recorded transfers (settlements) has committed. */
  subscriber(): Subscriber {
    return { name: 'transfers', wants: () => false, handle: async () => {}, afterCommit: () => this.#wakeIfRecorded() };
  }

  start(): void {
    if (!this.#stopped || this.#steppers.length === 0) return;
    this.#stopped = false;
    this.#unlisten = this.#platform.db.onCommit(() => this.#wakeIfRecorded());
    this.#schedule();
    this.kick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#run.settled();
  }

  kick(): void {
    this.#run.request();
  }

  /** One pass over every chain now; the first chain's failure is thrown after all have run (tests drive the worker with it). */
  async runOnce(): Promise<void> {
    const results = await Promise.allSettled(this.#steppers.map((s) => s.pass()));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Hot wallets (`chain:livemode`) with a transfer waiting for them to be funded. */
  waitingForFunds(): Promise<Set<string>> {
    return walletsWaitingForFunds(this.#platform.db.orm);
  }

  /** Hot wallets (`chain:livemode`) with a consolidation of their outputs not yet mined. */
  consolidating(): Promise<Set<string>> {
    return walletsConsolidating(this.#platform.db.orm);
  }

  #wakeIfRecorded(): void {
    if (!this.#recorded) return;
    this.#recorded = false;
    this.kick();
  }

  async #pass(): Promise<void> {
    await Promise.all(this.#steppers.map(async (s) => {
      const chain = s.family.chain;
      try {
        await s.pass();
        if (this.#down.delete(chain)) this.#platform.log.info({ chain }, 'transfers: the chain\'s node answers again');
      } catch (err) {
        if (!this.#down.has(chain)) this.#platform.log.warn({ chain, err: (err as Error).message }, 'transfers: pass failed; tried again');
        this.#down.add(chain);
      }
    }));
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.kick();
      this.#schedule();
    }, this.#pollMs);
    this.#timer.unref();
  }
}
