// When a chain reader asks its node again which token contracts of TOKEN_CONTRACTS it holds. Once
// at start; then, while one was found with no code (tokens/live-contracts.ts: its token unwatched
// and unavailable in live mode), again every MISSING_CONTRACT_RECHECK_MS: an operator who deploys
// the contract, or points the node at the right network, gets the token back without a restart.
// Once every contract was found, the node is not asked again (a contract's code does not go away).
import type { Chain } from '../config.ts';
import { systemClock, type Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import type { TokenSymbol } from './catalog.ts';

/** How long a token contract found missing stays so before the node is asked again (README, chain watching). */
export const MISSING_CONTRACT_RECHECK_MS = 5 * 60_000;

/** One chain reader's checks: when they are due, and the log of what each one changed. */
export class ContractChecks {
  readonly #chain: Chain;
  readonly #configured: Partial<Record<TokenSymbol, string>>;
  readonly #log: Logger | undefined;
  readonly #clock: Clock;
  #checkedAt: number | null = null;
  #missing = new Set<TokenSymbol>();

  constructor(chain: Chain, configured: Partial<Record<TokenSymbol, string>>, log?: Logger, clock: Clock = systemClock) {
    this.#chain = chain;
    this.#configured = configured;
    this.#log = log;
    this.#clock = clock;
  }

  /** Whether to ask the node now: never asked yet (or the last check failed), or a contract missing at the last one longer ago than the interval. */
  due(): boolean {
    if (this.#checkedAt === null) return true;
    return this.#missing.size > 0 && this.#clock.now().getTime() - this.#checkedAt >= MISSING_CONTRACT_RECHECK_MS;
  }

  /** A check that completed: `missing`, the tokens whose contract has no code. Logs those missing since the last one (warn) and those found again (info). */
  checked(missing: readonly TokenSymbol[]): void {
    const now = new Set(missing);
    const gone = missing.filter((t) => !this.#missing.has(t));
    const back = [...this.#missing].filter((t) => !now.has(t));
    this.#missing = now;
    this.#checkedAt = this.#clock.now().getTime();
    for (const token of gone) this.#log?.warn({ chain: this.#chain, token, contract: this.#configured[token] }, CONTRACT_MISSING_MESSAGE);
    for (const token of back) this.#log?.info({ chain: this.#chain, token, contract: this.#configured[token] }, CONTRACT_BACK_MESSAGE);
  }
}

export const CONTRACT_MISSING_MESSAGE = 'token contract has no code on the node: the token is not watched and is unavailable in live mode (set TOKEN_CONTRACTS)';
export const CONTRACT_BACK_MESSAGE = 'token contract now on the node: the token is watched and available in live mode again';
