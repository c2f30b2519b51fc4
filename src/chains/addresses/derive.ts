// Deposit and hot-wallet addresses of the seven chains, derived from WALLET_MNEMONIC (BIP-32/39/44/84).
//
// Path: m/purpose'/coin'/account'/0/index
//   purpose  84 (native segwit, BIP-84) for Bitcoin and Litecoin; 44 (BIP-44) for the rest
//   coin     SLIP-44: Bitcoin 0 (test mode 1, the testnet coin), Litecoin 2, Dogecoin 3,
//            Ethereum 60, BNB Smart Chain 60, Tron 195, XRP 144
//   account  base + slot, where slot is 0 live deposits, 1 test deposits, 2 live hot wallet,
//            3 test hot wallet; base is 10 on BNB Smart Chain and 0 elsewhere, so BNB Smart Chain
//            never reuses an Ethereum key although both use coin 60
//   index    the deposit's index (0 … 2^31-1); always 0 for a hot wallet
// So live and test, deposits and hot wallets, and the two EVM chains sit on disjoint hardened
// accounts: no address of one can equal an address of another.
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { Chain } from '../../config.ts';
import { deriveChildKey } from './child-key.ts';
import { encodeBase58Check, encodeSegwit, encodeXrpBase58Check, hash160, keccakAccountId, toChecksumAddress } from './encoding.ts';
import { TRON_PREFIX, XRP_ACCOUNT_PREFIX } from './networks.ts';
import { modeNetwork } from './live-networks.ts';

/** The master key of WALLET_MNEMONIC, with the account-level keys derived so far (hardened steps are the slow part). */
export interface WalletSeed {
  readonly root: HDKey;
  readonly branches: Map<string, HDKey>;
}

export interface DerivedAddress {
  address: string;
  path: string;
}

export interface DerivedKey extends DerivedAddress {
  /** 32-byte secp256k1 private key: for the chain adapters that sign sweeps and sends. */
  privateKey: Uint8Array;
  /** 33-byte compressed public key. */
  publicKey: Uint8Array;
}

/** Largest index of a non-hardened BIP-32 child. */
export const MAX_ADDRESS_INDEX = 0x7fffffff;

const PURPOSE: Record<Chain, number> = { bitcoin: 84, litecoin: 84, dogecoin: 44, ethereum: 44, bsc: 44, tron: 44, xrp: 44 };
const COIN_TYPE: Record<Chain, number> = { bitcoin: 0, litecoin: 2, dogecoin: 3, ethereum: 60, bsc: 60, tron: 195, xrp: 144 };
const BITCOIN_TESTNET_COIN_TYPE = 1;
const ACCOUNT_BASE: Record<Chain, number> = { bitcoin: 0, litecoin: 0, dogecoin: 0, ethereum: 0, bsc: 10, tron: 0, xrp: 0 };
const SLOT = { liveDeposits: 0, testDeposits: 1, liveHotWallet: 2, testHotWallet: 3 } as const;

/** Turns the mnemonic into the cached master key; call once at start (PBKDF2 takes a few milliseconds). */
export function seedFromMnemonic(mnemonic: string): WalletSeed {
  const words = mnemonic.trim().split(/\s+/).join(' ');
  if (!validateMnemonic(words, wordlist)) throw new Error('WALLET_MNEMONIC is not a valid BIP-39 English mnemonic');
  return { root: HDKey.fromMasterSeed(mnemonicToSeedSync(words)), branches: new Map() };
}

/** The account-level branch m/purpose'/coin'/account'/0 of a chain, mode and role (deposits or hot wallet). */
export function branchPath(chain: Chain, livemode: boolean, hotWallet: boolean): string {
  const coin = chain === 'bitcoin' && !livemode ? BITCOIN_TESTNET_COIN_TYPE : COIN_TYPE[chain];
  const slot = hotWallet ? (livemode ? SLOT.liveHotWallet : SLOT.testHotWallet) : livemode ? SLOT.liveDeposits : SLOT.testDeposits;
  return `m/${PURPOSE[chain]}'/${coin}'/${ACCOUNT_BASE[chain] + slot}'/0`;
}

/** The deposit address number `index` of a chain in a mode. */
export function deriveDepositAddress(seed: WalletSeed, chain: Chain, livemode: boolean, index: number): DerivedAddress {
  const { address, path } = deriveDepositKey(seed, chain, livemode, index);
  return { address, path };
}

/** Deposit address with its keys, for the adapter that sweeps it. */
export function deriveDepositKey(seed: WalletSeed, chain: Chain, livemode: boolean, index: number): DerivedKey {
  if (!Number.isInteger(index) || index < 0 || index > MAX_ADDRESS_INDEX) {
    throw new RangeError(`address index must be an integer from 0 to ${MAX_ADDRESS_INDEX}`);
  }
  return deriveAt(seed, branchPath(chain, livemode, false), index, chain, livemode);
}

/** The service's own wallet on a chain (gas top-ups, sends); never one of the deposit addresses. */
export function hotWalletAddress(seed: WalletSeed, chain: Chain, livemode: boolean): DerivedAddress {
  const { address, path } = hotWalletKey(seed, chain, livemode);
  return { address, path };
}

export function hotWalletKey(seed: WalletSeed, chain: Chain, livemode: boolean): DerivedKey {
  return deriveAt(seed, branchPath(chain, livemode, true), 0, chain, livemode);
}

/**
 * The XRP address every XRP payment is paid to (each with its own destination tag). It is the XRP
 * hot wallet: the service's fee stays there and a direct settlement leaves from it in one transfer
 * (spec part 1), and one account keeps the XRP reserve to a single one.
 */
export function xrpServiceAddress(seed: WalletSeed, livemode: boolean): DerivedAddress {
  return hotWalletAddress(seed, 'xrp', livemode);
}

function deriveAt(seed: WalletSeed, branch: string, index: number, chain: Chain, livemode: boolean): DerivedKey {
  let node = seed.branches.get(branch);
  if (!node) {
    node = seed.root.derive(branch);
    seed.branches.set(branch, node);
  }
  const { privateKey, publicKey, uncompressedPublicKey } = deriveChildKey(node, index);
  const address = addressOfPublicKey(chain, livemode, chain === 'ethereum' || chain === 'bsc' || chain === 'tron' ? uncompressedPublicKey : publicKey);
  return { address, path: `${branch}/${index}`, privateKey, publicKey };
}

/**
 * The chain's standard address of a secp256k1 public key (testnet format in test mode where one
 * exists; in live mode the network the chain's node reports, live-networks.ts). Compressed (33 bytes) for every chain; Ethereum, BNB Smart Chain and Tron also take the
 * uncompressed form (65 bytes).
 */
export function addressOfPublicKey(chain: Chain, livemode: boolean, publicKey: Uint8Array): string {
  switch (chain) {
    case 'bitcoin':
    case 'litecoin':
      return encodeSegwit(modeNetwork(chain, livemode).hrp!, 0, hash160(publicKey));
    case 'dogecoin':
      return encodeBase58Check(modeNetwork(chain, livemode).p2pkh, hash160(publicKey));
    case 'ethereum':
    case 'bsc':
      return toChecksumAddress(keccakAccountId(publicKey));
    case 'tron':
      return encodeBase58Check(TRON_PREFIX, keccakAccountId(publicKey));
    case 'xrp':
      return encodeXrpBase58Check(XRP_ACCOUNT_PREFIX, hash160(publicKey));
  }
}
