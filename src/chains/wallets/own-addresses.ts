// Addresses a payout must never go to (payout addresses, referral payouts): the service's own, where
// the money would stay in the gateway (a hot wallet: booked as a top-up; a deposit address: credited
// to some invoice, or to none), and the token contracts of a chain, which keep what is sent to them.
//
// Own addresses are compared by the key they pay (identity.ts), so the same key written for another
// network (a test payout address may be a mainnet one; a live one is rewritten for a regtest node)
// or in another script form (P2PKH for a P2WPKH key), another letter case, or with an XRP tag is
// still the service's. Both modes count: a test-mode key holds real coins on the main network too,
// and live and test keys alike are the service's. Every chain sharing a key form counts (an
// Ethereum hot wallet's key also holds what is sent to that address on BNB Smart Chain).
// The contracts are the mainnet ones (test payout addresses are mainnet addresses) and those of
// TOKEN_CONTRACTS (the live network's when it is not mainnet), in both modes.
import { CHAINS, type Chain } from '../../config.ts';
import type { Executor } from '../../platform/db/index.ts';
import { depositAddressGiven } from '../../payments/index.ts';
import { TOKEN_DEFS, tokensOnChain, type TokenSymbol } from '../../tokens/index.ts';
import { addressIdentity, identityForms } from '../addresses/identity.ts';
import type { WalletKeys } from './keys.ts';

export const OWN_ADDRESS = 'address belongs to this gateway: use an address of your own wallet';
export const tokenContractAddress = (token: TokenSymbol): string => `address is the ${token} token contract: tokens sent there are lost`;

export class OwnAddresses {
  readonly #keys: WalletKeys;
  readonly #configured: Record<string, string>;
  #hot: Set<string> | null = null;

  /** `configured`: TOKEN_CONTRACTS. */
  constructor(keys: WalletKeys, configured: Record<string, string>) {
    this.#keys = keys;
    this.#configured = configured;
  }

  /** The identities of every hot wallet, live and test (derived once, when first asked). */
  #hotWallets(): Set<string> {
    if (!this.#hot) {
      const ids = CHAINS.flatMap((chain) => [true, false].map((livemode) => addressIdentity(chain, this.#keys.hotAddress(chain, livemode))));
      this.#hot = new Set(ids.filter((id): id is string => id !== null));
    }
    return this.#hot;
  }

  /** The token of `chain` whose contract has identity `id` (mainnet or TOKEN_CONTRACTS), if any. */
  #contractToken(chain: Chain, id: string): TokenSymbol | undefined {
    for (const d of tokensOnChain(chain)) {
      if (d.native) continue;
      const contracts = [TOKEN_DEFS[d.token].contract, this.#configured[d.token]];
      if (contracts.some((c) => c !== undefined && addressIdentity(chain, c) === id)) return d.token;
    }
    return undefined;
  }

  /**
   * Why a payout of `token` may not go to `address` (a valid address of the token's network), or
   * null: `address is the <TOKEN> token contract: …` or `address belongs to this gateway: …`.
   * `ex`: the connection to read the payments with (the caller's transaction, when it has one).
   */
  async refusal(ex: Executor, token: TokenSymbol, address: string): Promise<string | null> {
    const chain = TOKEN_DEFS[token].chain;
    const id = addressIdentity(chain, address);
    const contract = id === null ? undefined : this.#contractToken(chain, id);
    if (contract) return tokenContractAddress(contract);
    if (id !== null && this.#hotWallets().has(id)) return OWN_ADDRESS;
    const forms = new Set([address.trim(), ...(id === null ? [] : identityForms(id))]);
    return await depositAddressGiven(ex, [...forms]) ? OWN_ADDRESS : null;
  }
}
