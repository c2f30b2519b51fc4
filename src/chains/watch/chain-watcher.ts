// Follows one chain (DESIGN.md principle 4: any family behind ChainReader). A pass, run by the
// process holding the chain's lock: check the node still serves the same network, read its tip,
// make sure the cursor's block is still on the best chain (else walk back to the common ancestor:
// a reorganisation), then finish the blocks after the cursor one by one (match their transfers
// against the watched addresses, record the deposits, move the cursor), then count the waiting
// deposits again. Watching resumes from the cursor after any restart or outage.
import type { Chain } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import { withoutQueryValues, type Logger } from '../../platform/logger.ts';
import { MISSING_CONTRACT_RECHECK_MS } from '../../tokens/index.ts';
import type { NodeEndpoints } from '../rpc/endpoints.ts';
import { RpcError } from '../rpc/json-rpc.ts';
import type { CursorStore, ChainStatus } from './cursor-store.ts';
import { DepositFeed, matchTransfers } from './deposit-feed.ts';
import { findCommonAncestor } from './reorg.ts';
import type { ReorgHandler } from './reorg-handler.ts';
import type { WatchedAddresses } from './watched-addresses.ts';
import type { AddressIndex } from './address-index.ts';
import type { BlockRef, ChainReader, ObservedTransfer, OwnWallet } from './types.ts';

export interface WatcherOptions {
  confirmations: number;
  /** The tip is stale when its block is older than this (CONTRACT.md: `stale` in /admin/chains). */
  staleAfterMs: number;
  /** Blocks finished per pass at most (a long catch-up reports its progress between passes). */
  maxBlocksPerPass: number;
  /** Behind by more blocks than this: `syncing`. */
  syncingBehind: number;
}

export interface WatcherState {
  chain: Chain;
  status: ChainStatus;
  height: bigint | null;
  hash: string | null;
  blockTime: Date | null;
  rpcUrlIndex: number;
  lastError: string | null;
}

export interface WatcherParts {
  reader: ChainReader;
  endpoints: NodeEndpoints;
  cursors: CursorStore;
  addresses: WatchedAddresses;
  feed: DepositFeed;
  reorgs: ReorgHandler;
  clock: Clock;
  log: Logger;
  /** The chain's hot wallet, when its arrivals are reported (Bitcoin family). */
  own?: OwnWallet;
}

export class ChainWatcher {
  readonly chain: Chain;
  readonly #p: WatcherParts;
  readonly #o: WatcherOptions;
  /**
   * Mempool transfers fed already (`txId:to:tag`), while they stay in the mempool: each is fed
   * once, not on every pass (a mempool of many pending deposits would otherwise cost a database
   * round per deposit per pass, and delay the next one's `detecting`).
   */
  readonly #pooledFed = new Set<string>();
  #state: WatcherState;
  #stopped = false;
  /** Nodes moved on from in a row for being behind the last block finished (see #pass). */
  #behindSkips = 0;

  constructor(parts: WatcherParts, opts: WatcherOptions) {
    this.#p = parts;
    this.#o = opts;
    this.chain = parts.reader.chain;
    this.#state = { chain: this.chain, status: 'syncing', height: null, hash: null, blockTime: null, rpcUrlIndex: 0, lastError: null };
  }

  /** What this process knows of the chain (the holder's view; the others read the cursor row). */
  get state(): WatcherState {
    return this.#state;
  }

  stop(): void {
    this.#stopped = true;
  }

  /** When this process last had the node's answer to `network()` on standby (ms); null: not yet. */
  #networkReadAt: number | null = null;

  /**
   * Another process watches the chain: this one still asks the node what it serves, as the
   * watching process does on its passes (the network of live addresses, the EVM and Tron token
   * contracts with no code there, which are unavailable in live mode), so that every process offers
   * the same coins. Once, then again every MISSING_CONTRACT_RECHECK_MS: the reader asks again then
   * about a contract it found missing, which the operator may have deployed since.
   */
  async standby(): Promise<void> {
    if (this.#stopped) return;
    const now = this.#p.clock.now().getTime();
    if (this.#networkReadAt !== null && now - this.#networkReadAt < MISSING_CONTRACT_RECHECK_MS) return;
    await this.#p.reader.network().then(() => { this.#networkReadAt = now; }, () => {});
  }

  /** The lock was lost: the index is rebuilt when the chain is taken again. */
  released(): void {
    this.#pooledFed.clear();
    this.#p.addresses.drop();
  }

  /** One pass; never throws (a failure is the chain's state: `down` with its reason). Returns the blocks it finished. */
  async pass(): Promise<number> {
    const { endpoints, log } = this.#p;
    try {
      return await this.#pass();
    } catch (err) {
      // stored as the chain's last_error and shown to the operator: never a failed query's values
      const message = withoutQueryValues((err as Error).message);
      if (this.#state.status !== 'down' || this.#state.lastError !== message) log.warn({ chain: this.chain, err: message }, 'chain watch: pass failed');
      // A node that answered nonsense or from the wrong network: the next one is tried on the next pass.
      if (!(err instanceof RpcError) && !(err instanceof NetworkChanged)) endpoints.skip(message);
      await this.#report('down', message);
      return 0;
    }
  }

  async #pass(): Promise<number> {
    const { reader, cursors, clock } = this.#p;
    // side by side: a block's wait for its first pass is on every deposit's way to its webhook
    const [network, loaded, head] = await Promise.all([reader.network(), cursors.load(this.chain), reader.head()]);
    let cursor = loaded;
    if (cursor && cursor.network !== network) {
      this.#p.endpoints.skip(`serves network ${network}, expected ${cursor.network}`);
      throw new NetworkChanged(network, cursor.network);
    }
    cursor ??= await cursors.init(this.chain, await this.#startBlock(head), network, clock.now());
    let at: BlockRef = { height: cursor.height, hash: cursor.hash, parentHash: '', time: cursor.blockTime };
    if (head.height < at.height && this.#behindSkips < this.#p.endpoints.urls.length - 1 && await this.#behind(head)) {
      // A node behind the last block finished, on the same chain (a fallback URL that lags): while
      // another node may have the blocks, it is moved on from and nothing is rolled back (following
      // it back would drop waiting deposits to 0 confirmations, and audit final ones as taken by a
      // reorganisation). One node alone cannot tell lagging from its tip block taken away: when
      // every node was tried and shows the same, it is followed back as a reorganisation.
      this.#behindSkips++;
      this.#p.endpoints.skip(`behind: its best block ${head.height} is below the last block finished, ${at.height}`);
      this.#state = { ...this.#state, height: at.height, hash: at.hash, blockTime: at.time };
      await this.#report('syncing', this.#p.endpoints.lastError);
      return 0;
    }
    this.#behindSkips = 0;
    // Below the tip, the next block's parent hash checks the cursor; at or above it, the tip itself does.
    if (head.height < at.height || (head.height === at.height && head.hash !== at.hash)) at = await this.#onBestChain(at);
    const count = await this.#counter(head);
    // the hot wallet's address (the node's network is known by now): in the index, so the reader builds what pays it
    const own = this.#p.own?.address();
    const isOwn = (t: ObservedTransfer) => t.to === own && t.tag === undefined;
    const withOwn = (index: AddressIndex) => { if (own !== undefined) index.add(own); return index; };
    let finished = 0;
    let index: AddressIndex | undefined;
    while (at.height < head.height && finished < this.#o.maxBlocksPerPass && !this.#stopped) {
      // Topped up before the block is read: every address paid in it was issued before the head
      // read above, so the index already holds it, and the reader builds only the transfers it matches.
      index = withOwn(await this.#p.addresses.current());
      const block = await reader.block(at.height + 1n, index);
      if (!block) break;
      if (block.parentHash !== at.hash) {
        at = await this.#onBestChain(at, true);
        continue;
      }
      const now = clock.now();
      const matched = matchTransfers(index, block.transfers);
      if (block.unchecked) matched.push(...await block.unchecked.succeeded(matchTransfers(index, block.unchecked.transfers)));
      if (reader.senders) await reader.senders(matched.filter((t) => !isOwn(t)));
      for (const t of matched) {
        if (isOwn(t)) await this.#p.own!.arrived(t.txId, block.height);
        else await this.#p.feed.transfer(t, block.height, count(block.height), now);
      }
      await cursors.advance(this.chain, at, block, now);
      at = block;
      finished++;
    }
    const pooled = new Set<string>();
    if (reader.pending) {
      // the index a block of this pass was matched against is current enough (topped up just now)
      index ??= withOwn(await this.#p.addresses.current());
      const seen = new Set<string>();
      // what pays the hot wallet counts once mined (above), not from the mempool
      const pendingTransfers = matchTransfers(index, await reader.pending()).filter((x) => !isOwn(x));
      const keyOf = (t: ObservedTransfer) => `${t.txId}:${t.to}:${t.tag ?? ''}`;
      if (reader.senders) await reader.senders(pendingTransfers.filter((t) => !this.#pooledFed.has(keyOf(t))));
      for (const t of pendingTransfers) {
        const key = keyOf(t);
        seen.add(key);
        pooled.add(t.txId);
        if (this.#pooledFed.has(key)) continue;
        // an address not (yet) a payment's is looked at again on the next pass
        if (await this.#p.feed.transfer(t, undefined, 0, clock.now()) !== 'not_ours') this.#pooledFed.add(key);
      }
      for (const key of this.#pooledFed) if (!seen.has(key)) this.#pooledFed.delete(key);
    }
    // deposits kept for a price in this pass are looked at from the next one (the row read above predates them)
    await this.#p.feed.recount(count, at.height, clock.now(), pooled, cursor.awaitingPrice);
    this.#state = { ...this.#state, height: at.height, hash: at.hash, blockTime: at.time };
    await this.#report(this.#statusAt(head, at), this.#p.endpoints.lastError);
    return finished;
  }

  /**
   * Confirmations of a block at `height`: the node's count against the tip (the block itself is 1),
   * and at least the required count at or below the family's final height (Tron's solidified block).
   */
  async #counter(head: BlockRef): Promise<(height: bigint) => number> {
    // (Tron's solidity API may be down: then the count alone decides)
    const final = this.#p.reader.finalHeight ? await this.#p.reader.finalHeight().catch(() => null) : null;
    const required = this.#o.confirmations;
    return (height) => {
      const n = Number(head.height - height + 1n);
      return final !== null && height <= final ? Math.max(n, required) : n;
    };
  }

  /** Where watching starts the first time: a few blocks below the tip, so a payment made just before is not missed. */
  async #startBlock(head: BlockRef): Promise<BlockRef> {
    const back = BigInt(this.#o.confirmations);
    if (head.height <= back) return (await this.#p.reader.header(0n)) ?? head;
    return (await this.#p.reader.header(head.height - back)) ?? head;
  }

  /** Whether the node's best block is one the watcher finished: the node is behind on the same chain. */
  async #behind(head: BlockRef): Promise<boolean> {
    const [kept] = await this.#p.cursors.recent(this.chain, head.height);
    return kept !== undefined && kept.height === head.height && kept.hash === head.hash;
  }

  /** The cursor's block if it is still on the best chain, else the common ancestor (the reorganisation handled). */
  async #onBestChain(at: BlockRef, known = false): Promise<BlockRef> {
    if (!known) {
      const there = await this.#p.reader.header(at.height);
      if (there && there.hash === at.hash) return { ...at, parentHash: there.parentHash, time: there.time };
    }
    const ancestor = await findCommonAncestor(this.#p.reader, this.#p.cursors, this.chain, at.height);
    await this.#p.reorgs.handle(this.chain, at, ancestor);
    return ancestor.block;
  }

  #statusAt(head: BlockRef, at: BlockRef): ChainStatus {
    if (this.#p.clock.now().getTime() - head.time.getTime() > this.#o.staleAfterMs) return 'stale';
    return head.height - at.height > BigInt(this.#o.syncingBehind) ? 'syncing' : 'ok';
  }

  async #report(status: ChainStatus, lastError: string | null): Promise<void> {
    const rpcUrlIndex = this.#p.endpoints.index;
    const changed = status !== this.#state.status || lastError !== this.#state.lastError || rpcUrlIndex !== this.#state.rpcUrlIndex;
    if (status === 'stale' && this.#state.status !== 'stale') {
      this.#p.log.warn({ chain: this.chain }, 'chain watch: the node\'s tip is stale');
      this.#p.endpoints.skip('stale tip');
    }
    this.#state = { ...this.#state, status, lastError, rpcUrlIndex: this.#p.endpoints.index };
    if (changed) await this.#p.cursors.setStatus(this.chain, { status, rpcUrlIndex: this.#state.rpcUrlIndex, lastError }, this.#p.clock.now()).catch(() => {});
  }
}

export class NetworkChanged extends Error {
  constructor(got: string, expected: string) {
    super(`the node serves network ${got}, not ${expected}: nothing is read from it`);
    this.name = 'NetworkChanged';
  }
}
