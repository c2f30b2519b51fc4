// The hot wallets of /admin/wallets: one per chain and mode, listed from the start for every chain
// (CONTRACT.md). `balances` are read from the chain's node when asked and kept at most 60 seconds;
// they are absent in test mode (test mode never touches a chain), where no node is configured, and
// while the node cannot answer. `needs_funding` says a sweep's gas top-up or a payout waits for
// this wallet to be funded; `consolidating` that its smallest outputs are being joined into one
// (a payout more of them would have to spend than one transaction may waits for it).
import { CHAINS, type Chain } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import { formatUnits } from '../../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../tokens/index.ts';
import type { WalletKeys } from './keys.ts';

export const BALANCES_MAX_AGE_MS = 60_000;

export type BalanceReader = (address: string) => Promise<{ token: TokenSymbol; amount: bigint }[]>;

export interface WalletJson {
  chain: Chain;
  address: string;
  livemode: boolean;
  balances?: { token: TokenSymbol; amount: string }[];
  needs_funding: boolean;
  consolidating: boolean;
}

/** Wallets (`chain:livemode`) in each state, asked when the list is. */
export interface WalletStates {
  funding: () => Promise<Set<string>>;
  consolidating: () => Promise<Set<string>>;
}

interface Cached { at: number; balances: Promise<{ token: TokenSymbol; amount: bigint }[] | null> }

export class HotWallets {
  readonly #keys: WalletKeys;
  readonly #readers: Partial<Record<Chain, BalanceReader>>;
  readonly #states: WalletStates;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #cache = new Map<Chain, Cached>();

  /** `readers`: a balance reader per chain with a node (live hot wallets); `states`: wallets awaited by a transfer or consolidating. */
  constructor(keys: WalletKeys, readers: Partial<Record<Chain, BalanceReader>>, states: WalletStates, clock: Clock, log: Logger) {
    this.#keys = keys;
    this.#readers = readers;
    this.#states = states;
    this.#clock = clock;
    this.#log = log;
  }

  /** Live balances of a chain's hot wallet, read again once the last read is 60 s old; null when unreadable. */
  #balances(chain: Chain, read: BalanceReader): Cached['balances'] {
    const now = this.#clock.now().getTime();
    const cached = this.#cache.get(chain);
    if (cached && now - cached.at < BALANCES_MAX_AGE_MS) return cached.balances;
    const balances = read(this.#keys.hotAddress(chain, true)).catch((err: Error) => {
      this.#log.warn({ chain, err: err.message }, 'hot wallet balances could not be read');
      this.#cache.delete(chain);
      return null;
    });
    this.#cache.set(chain, { at: now, balances });
    return balances;
  }

  async list(): Promise<WalletJson[]> {
    const [waiting, consolidating, read] = await Promise.all([
      this.#states.funding(),
      this.#states.consolidating(),
      Promise.all(CHAINS.map((c) => { const r = this.#readers[c]; return r ? this.#balances(c, r) : Promise.resolve(null); })),
    ]);
    return CHAINS.flatMap((chain, i) => [true, false].map((livemode) => {
      const balances = livemode ? read[i] : null;
      return {
        chain, address: this.#keys.hotAddress(chain, livemode), livemode,
        ...(balances ? { balances: balances.map((b) => ({ token: b.token, amount: formatUnits(b.amount, TOKEN_DEFS[b.token].decimals) })) } : {}),
        needs_funding: waiting.has(`${chain}:${livemode}`),
        consolidating: consolidating.has(`${chain}:${livemode}`),
      };
    }));
  }
}
