// The chain watchers of this process, one per chain with a node and a reader: each is driven every
// CHAIN_POLL_MS while this process holds that chain's lock, and stands by otherwise. Passes of a
// chain never overlap; chains run side by side, so a slow or dead node holds up only its own chain.
import type { Chain } from '../../config.ts';
import type { Platform } from '../../platform/context.ts';
import { CoalescedRun } from '../../platform/coalesced-run.ts';
import type { ChainNodes } from '../rpc/nodes.ts';
import { ChainLocks } from './chain-locks.ts';
import { ChainWatcher, type WatcherOptions, type WatcherState } from './chain-watcher.ts';
import { CursorStore } from './cursor-store.ts';
import { DepositFeed, type FeedDeps } from './deposit-feed.ts';
import { ReorgHandler, type ReorgCounters } from './reorg-handler.ts';
import { WatchedAddresses } from './watched-addresses.ts';
import { chainViews, type ChainView } from './report.ts';
import type { ChainReader, OwnWallet } from './types.ts';

/** How old the best block may be before the chain is `stale`: several times the chain's block interval. */
export const STALE_AFTER_S: Record<Chain, number> = {
  bitcoin: 3 * 3600, litecoin: 3600, dogecoin: 1200, ethereum: 300, bsc: 120, tron: 120, xrp: 120,
};

/** Finished blocks kept per chain for reorganisations (far deeper than any chain's confirmations). */
export const KEEP_BLOCKS = 256;

export interface WatchingOptions {
  staleAfterS?: Partial<Record<Chain, number>>;
  maxBlocksPerPass?: number;
}

/** Reorganisations seen by this process since it started, per chain (/metrics counters). */
export interface ReorgCounts {
  reorgs: Map<Chain, number>;
  deep: Map<Chain, number>;
}

interface Slot {
  watcher: ChainWatcher;
  run: CoalescedRun;
  held: boolean;
}

export class ChainWatching {
  readonly cursors: CursorStore;
  readonly reorgCounts: ReorgCounts = { reorgs: new Map(), deep: new Map() };
  readonly #platform: Platform;
  readonly #staleAfterS: Partial<Record<Chain, number>>;
  readonly #locks: ChainLocks;
  readonly #slots = new Map<Chain, Slot>();
  readonly #configured: Chain[];
  #timer: NodeJS.Timeout | null = null;
  #stopped = true;

  /** `own`: the chains' hot wallets whose arrivals are reported (OwnWallet). */
  constructor(platform: Platform, nodes: ChainNodes, readers: readonly ChainReader[], feedDeps: Omit<FeedDeps, 'db'>, opts: WatchingOptions = {}, own: Partial<Record<Chain, OwnWallet>> = {}) {
    const { db, config, clock, log } = platform;
    this.#platform = platform;
    this.#staleAfterS = opts.staleAfterS ?? {};
    this.#configured = (Object.keys(nodes) as Chain[]).filter((c) => nodes[c]);
    this.cursors = new CursorStore(db, KEEP_BLOCKS);
    this.#locks = new ChainLocks(db.kind === 'postgres' ? db.url : null, log);
    const bump = (m: Map<Chain, number>, chain: Chain) => m.set(chain, (m.get(chain) ?? 0) + 1);
    const counters: ReorgCounters = { reorg: (chain) => bump(this.reorgCounts.reorgs, chain), deepReorg: (chain) => bump(this.reorgCounts.deep, chain) };
    for (const reader of readers) {
      const endpoints = nodes[reader.chain];
      if (!endpoints) continue;
      const feed = new DepositFeed({ ...feedDeps, db }, reader);
      const o: WatcherOptions = {
        confirmations: config.confirmations[reader.chain],
        staleAfterMs: (opts.staleAfterS?.[reader.chain] ?? STALE_AFTER_S[reader.chain]) * 1000,
        maxBlocksPerPass: opts.maxBlocksPerPass ?? 500,
        syncingBehind: Math.max(config.confirmations[reader.chain], 10),
      };
      const watcher = new ChainWatcher({
        reader, endpoints, cursors: this.cursors, feed, clock, log, own: own[reader.chain],
        addresses: new WatchedAddresses(db, reader.chain, (a) => reader.normalizeAddress(a)),
        reorgs: new ReorgHandler({ db, cursors: this.cursors, feed, clock, log, counters }),
      }, o);
      const slot: Slot = { watcher, held: false, run: new CoalescedRun(() => this.#turn(slot), () => this.#stopped) };
      this.#slots.set(reader.chain, slot);
    }
  }

  /** The chains with a node configured (those /admin/chains lists). */
  get configured(): readonly Chain[] {
    return this.#configured;
  }

  /** The watchers' own view of their chains (this process's). */
  states(): WatcherState[] {
    return [...this.#slots.values()].map((s) => s.watcher.state);
  }

  /** Every chain with a node configured, as /admin/chains answers it. */
  async report(): Promise<ChainView[]> {
    const own = new Map([...this.#slots].filter(([, s]) => s.held).map(([chain, s]) => [chain, s.watcher.state] as const));
    return chainViews(this.#configured, await this.cursors.list(), own, this.#platform.clock.now(), (chain) => this.#staleAfterS[chain] ?? STALE_AFTER_S[chain]);
  }

  /** Whether this process watches `chain` now. */
  holds(chain: Chain): boolean {
    return this.#slots.get(chain)?.held ?? false;
  }

  start(): void {
    if (!this.#stopped || this.#slots.size === 0) return;
    this.#stopped = false;
    const tick = () => {
      for (const s of this.#slots.values()) s.run.request();
      if (!this.#stopped) this.#timer = setTimeout(tick, this.#platform.config.chainPollMs).unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    for (const s of this.#slots.values()) s.watcher.stop();
    await Promise.all([...this.#slots.values()].map((s) => s.run.settled()));
    await this.#locks.close();
  }

  /** One pass of every chain now, in this process (tests drive the watchers with it). */
  async runOnce(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((s) => this.#turn(s)));
  }

  async #turn(slot: Slot): Promise<void> {
    const held = await this.#locks.hold(slot.watcher.chain);
    if (!held) {
      if (slot.held) slot.watcher.released();
      slot.held = false;
      await slot.watcher.standby();
      return;
    }
    slot.held = true;
    // A pass that found a block looks again at once rather than a poll interval later: a block
    // mined meanwhile is read without waiting (blocks come in bursts after a node's outage, too).
    if (await slot.watcher.pass() > 0) slot.run.request();
  }
}
