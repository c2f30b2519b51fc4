// The service's signing keys, all derived from WALLET_MNEMONIC: a hot wallet per chain and mode,
// and the key of each deposit address (by the index its payment keeps). Keys leave this object
// only to sign; nothing here is logged, and errors never carry a key.
import type { Chain } from '../../config.ts';
import { deriveDepositKey, hotWalletKey, seedFromMnemonic, type DerivedKey, type WalletSeed } from '../addresses/index.ts';

export class WalletKeys {
  readonly #seed: WalletSeed;
  readonly #hot = new Map<string, DerivedKey>();

  constructor(mnemonic: string) {
    this.#seed = seedFromMnemonic(mnemonic);
  }

  #hotKey(chain: Chain, livemode: boolean): DerivedKey {
    const id = `${chain}:${livemode}`;
    let key = this.#hot.get(id);
    if (!key) {
      key = hotWalletKey(this.#seed, chain, livemode);
      this.#hot.set(id, key);
    }
    return key;
  }

  /** The hot wallet's address: gas top-ups, payouts and the service's fees. */
  hotAddress(chain: Chain, livemode: boolean): string {
    return this.#hotKey(chain, livemode).address;
  }

  /** The private key of the hot wallet (32 bytes), for signing only. */
  hotPrivateKey(chain: Chain, livemode: boolean): Uint8Array {
    return this.#hotKey(chain, livemode).privateKey;
  }

  /** Address and private key of deposit address number `index`. */
  deposit(chain: Chain, livemode: boolean, index: number): { address: string; privateKey: Uint8Array } {
    const { address, privateKey } = deriveDepositKey(this.#seed, chain, livemode, index);
    return { address, privateKey };
  }
}
