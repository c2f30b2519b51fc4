// Address parameters of the seven chains: version bytes, bech32 prefixes, the network name that
// appears in validation messages. Pure data, shared by derivation and validation.
import type { Chain } from '../../config.ts';

/**
 * Name of a chain's network in `address is not a valid <network> address` (spec part 7, whose example
 * is `tron`): the lowercase chain id the API already shows in `chain` fields, so one word means one
 * network everywhere.
 */
export const NETWORK_NAMES: Record<Chain, string> = {
  bitcoin: 'bitcoin', litecoin: 'litecoin', dogecoin: 'dogecoin', ethereum: 'ethereum', bsc: 'bsc', tron: 'tron', xrp: 'xrp',
};

/** One network of a Bitcoin-family chain (mainnet or testnet). */
export interface UtxoNetwork {
  /** bech32 human-readable part of native segwit addresses; absent where the chain has none. */
  hrp?: string;
  /** Version byte of pay-to-public-key-hash base58check addresses. */
  p2pkh: number;
  /** Version bytes of pay-to-script-hash base58check addresses (Litecoin accepts its legacy `3` too). */
  p2sh: readonly number[];
}

export type UtxoChain = 'bitcoin' | 'litecoin' | 'dogecoin';

/** The networks of a Bitcoin-family chain: its public network, its test network(s) and a local regtest. */
export type UtxoNetworkKind = 'main' | 'test' | 'regtest';

export const UTXO_NETWORKS: Record<UtxoChain, Record<UtxoNetworkKind, UtxoNetwork>> = {
  bitcoin: {
    main: { hrp: 'bc', p2pkh: 0x00, p2sh: [0x05] },
    // testnet3, testnet4 and signet share these
    test: { hrp: 'tb', p2pkh: 0x6f, p2sh: [0xc4] },
    regtest: { hrp: 'bcrt', p2pkh: 0x6f, p2sh: [0xc4] },
  },
  litecoin: {
    // M… (0x32) is today's P2SH; 3… (0x05) is the older one Litecoin wallets still accept.
    main: { hrp: 'ltc', p2pkh: 0x30, p2sh: [0x32, 0x05] },
    test: { hrp: 'tltc', p2pkh: 0x6f, p2sh: [0x3a, 0xc4] },
    regtest: { hrp: 'rltc', p2pkh: 0x6f, p2sh: [0x3a, 0xc4] },
  },
  dogecoin: {
    // Dogecoin has no segwit addresses: D… (P2PKH) and 9…/A… (P2SH) only.
    main: { p2pkh: 0x1e, p2sh: [0x16] },
    test: { p2pkh: 0x71, p2sh: [0xc4] },
    regtest: { p2pkh: 0x6f, p2sh: [0xc4] },
  },
};

export const isUtxoChain = (chain: Chain): chain is UtxoChain => chain in UTXO_NETWORKS;
/** The Bitcoin-family chains, in the order of their networks' table. */
export const UTXO_CHAINS = Object.keys(UTXO_NETWORKS) as readonly UtxoChain[];

/** First byte of a Tron address (T… in base58check). */
export const TRON_PREFIX = 0x41;
/** First byte of an XRP classic address (r… in XRP's base58). */
export const XRP_ACCOUNT_PREFIX = 0x00;
