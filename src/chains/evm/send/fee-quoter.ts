// The market's NetworkFeeQuoter for Ethereum and BNB Smart Chain: what moving a deposit out of its
// address costs at today's gas prices. A direct settlement makes two transfers from the deposit
// address (the merchant's net and the service's share); a token's address first gets its gas from
// the hot wallet, one more plain transfer.
import { TOKEN_DEFS, type TokenSymbol } from '../../../tokens/index.ts';
import type { Chain } from '../../../config.ts';
import type { NetworkFeeQuoter } from '../../../market/network-fee-port.ts';
import { currentPrice, type NetworkPrices } from './fees.ts';

/** Gas of a plain transfer, and of an ERC-20 `transfer` to an address that held none (a new balance slot). */
export const NATIVE_TRANSFER_GAS = 21_000n;
export const TOKEN_TRANSFER_GAS = 65_000n;
/** Transfers out of a deposit address per settlement. */
export const TRANSFERS_PER_DEPOSIT = 2n;

/** Gas units of moving a deposit of `token` out, top-up included. */
export function sweepGas(token: TokenSymbol): bigint {
  return TOKEN_DEFS[token].native
    ? TRANSFERS_PER_DEPOSIT * NATIVE_TRANSFER_GAS
    : TRANSFERS_PER_DEPOSIT * TOKEN_TRANSFER_GAS + NATIVE_TRANSFER_GAS;
}

export interface PriceSource { prices(): Promise<NetworkPrices> }

export class EvmFeeQuoter implements NetworkFeeQuoter {
  readonly #chains: Partial<Record<Chain, PriceSource>>;
  /** The market asks for every token at once: the tokens of a chain share one reading of its prices. */
  readonly #reading = new Map<Chain, Promise<NetworkPrices>>();

  constructor(chains: Partial<Record<Chain, PriceSource>>) {
    this.#chains = chains;
  }

  #prices(chain: Chain, source: PriceSource): Promise<NetworkPrices> {
    let reading = this.#reading.get(chain);
    if (!reading) {
      reading = source.prices().finally(() => this.#reading.delete(chain));
      this.#reading.set(chain, reading);
    }
    return reading;
  }

  async quoteSweepFee(token: TokenSymbol): Promise<bigint | null> {
    const chain = TOKEN_DEFS[token].chain;
    const source = this.#chains[chain];
    if (!source) return null;
    try {
      return sweepGas(token) * currentPrice(await this.#prices(chain, source));
    } catch {
      return null;
    }
  }
}
