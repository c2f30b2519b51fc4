// The chain id each EVM chain's node reports (eth_chainId), for the checkout page's "Open in
// wallet" links: EIP-681 names the chain, and a gateway whose nodes are a test network (anvil, a
// testnet: a staging set-up) must not send a payer's wallet to mainnet, where nothing watches the
// address. Asked at start and again every CHAIN_POLL_MS until each node has answered (every process
// asks for itself: the page is served by all, the chains are watched by one). Transactions are
// signed for the id read at each send (evm/send/family.ts), and the watcher stops crediting from
// a node that changes network; this only names the chain to payers.
import type { Chain } from '../../config.ts';

export type ChainIdSource = () => Promise<number>;

export class EvmChainIds {
  readonly #sources: ReadonlyMap<Chain, ChainIdSource>;
  readonly #known = new Map<Chain, number>();
  readonly #retryMs: number;
  #asking: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(sources: Partial<Record<Chain, ChainIdSource>>, retryMs: number) {
    this.#sources = new Map(Object.entries(sources) as [Chain, ChainIdSource][]);
    this.#retryMs = retryMs;
  }

  /**
   * Each EVM chain with a node: its chain id, or null while the node has not answered (the page
   * then offers no EVM link: mainnet would be a guess). Chains without a node are left out (they
   * take no live payment; the page would name mainnet).
   */
  current(): Partial<Record<Chain, number | null>> {
    const ids: Partial<Record<Chain, number | null>> = {};
    for (const chain of this.#sources.keys()) ids[chain] = this.#known.get(chain) ?? null;
    return ids;
  }

  /** Asks each node that has not answered yet, once; a failure waits for the next try. */
  learn(): Promise<void> {
    this.#asking ??= Promise.all([...this.#sources].filter(([chain]) => !this.#known.has(chain)).map(async ([chain, ask]) => {
      const id = await ask().catch(() => null);
      if (id !== null && Number.isSafeInteger(id) && id > 0) this.#known.set(chain, id);
    })).then(() => { this.#asking = null; });
    return this.#asking;
  }

  /** Asks now, and again every `retryMs` until every node has answered. */
  start(): void {
    this.#stopped = false;
    const tick = async (): Promise<void> => {
      this.#timer = null;
      await this.learn();
      if (!this.#stopped && this.#known.size < this.#sources.size) this.#timer = setTimeout(() => void tick(), this.#retryMs).unref();
    };
    void tick();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
