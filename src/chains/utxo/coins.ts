// What differs between the three Bitcoin-family coins beyond their address bytes (those are in
// chains/addresses/networks.ts): the coin's token, the genesis block of each network (so a node of
// another coin is told apart from the configured one), how blocks are read from its node, the
// script type of the service's own addresses, dust, fee units and whether a stuck transaction can
// be replaced with a higher fee.
import type { TokenSymbol } from '../../tokens/index.ts';
import type { UtxoChain, UtxoNetworkKind } from '../addresses/index.ts';

export interface UtxoCoin {
  chain: UtxoChain;
  token: TokenSymbol;
  /** Genesis block hash of each network: `getblockhash 0` says which coin a node serves. */
  genesis: Record<UtxoNetworkKind, readonly string[]>;
  /**
   * `getblock <hash> 2` (full transactions in one call: Bitcoin Core 0.16+, Litecoin 0.21), or
   * `getblock <hash> true` plus `getrawtransaction` per transaction (Dogecoin 1.14, whose getblock
   * takes a boolean and refuses 2).
   */
  blockVerbosity2: boolean;
  /** The service's addresses: native segwit key hash, or legacy key hash where there is no segwit. */
  script: 'p2wpkh' | 'p2pkh';
  /**
   * The smallest output the coin's nodes relay (base units), for the service's own outputs. Bitcoin
   * Core and Litecoin: 3 sat/vB dust relay fee × the 98 vbytes of spending a P2WPKH output (294);
   * Dogecoin 1.14.6: the 0.01 DOGE soft dust limit below which every output costs an extra 0.01 DOGE fee.
   */
  dustLimit: bigint;
  /** Lowest fee rate ever used, base units per 1000 virtual bytes (the nodes' default minimum relay fee). */
  minFeePerKvb: bigint;
  /** Fee rate when the node has no estimate (regtest never has one), base units per 1000 vbytes. */
  fallbackFeePerKvb: bigint;
  /** Whether a stuck transaction may be replaced by one paying more (BIP-125 opt-in signalled on every input). */
  replaceable: boolean;
  /** About how long a block takes: a sent transaction unmined for several of them is looked at again. */
  blockMs: number;
  /**
   * The largest transaction the coin's nodes relay (standardness), in virtual bytes: Bitcoin Core and
   * Litecoin MAX_STANDARD_TX_WEIGHT 400,000 weight units; Dogecoin 1.14 MAX_STANDARD_TX_SIZE 100,000
   * bytes. A larger one is refused (`tx-size`) every time.
   */
  maxStandardVbytes: number;
}

export const UTXO_COINS: Record<UtxoChain, UtxoCoin> = {
  bitcoin: {
    chain: 'bitcoin', token: 'BTC',
    genesis: {
      main: ['000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f'],
      test: [
        '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943', // testnet3
        '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043', // testnet4
        '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6', // signet
      ],
      regtest: ['0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206'],
    },
    blockVerbosity2: true, script: 'p2wpkh', dustLimit: 294n,
    minFeePerKvb: 1_000n, fallbackFeePerKvb: 10_000n, replaceable: true, blockMs: 600_000, maxStandardVbytes: 100_000,
  },
  litecoin: {
    chain: 'litecoin', token: 'LTC',
    genesis: {
      main: ['12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2'],
      test: ['4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0'],
      regtest: ['530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9'],
    },
    blockVerbosity2: true, script: 'p2wpkh', dustLimit: 294n,
    minFeePerKvb: 1_000n, fallbackFeePerKvb: 10_000n, replaceable: true, blockMs: 150_000, maxStandardVbytes: 100_000,
  },
  dogecoin: {
    chain: 'dogecoin', token: 'DOGE',
    genesis: {
      main: ['1a91e3dace36e2be3bf030a65679fe821aa1d6ef92e7c9902eb318182c355691'],
      test: ['bb0a78264637406b6360aad926284d544d7049f45189db5664f3c4d07350559e'],
      regtest: ['3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5'],
    },
    // 1.14's recommended minimum: 0.01 DOGE per kB (no segwit: bytes are vbytes)
    blockVerbosity2: false, script: 'p2pkh', dustLimit: 1_000_000n,
    minFeePerKvb: 1_000_000n, fallbackFeePerKvb: 1_000_000n, replaceable: false, blockMs: 60_000, maxStandardVbytes: 100_000,
  },
};

/** The network a genesis hash belongs to for this coin; null when it is another coin's (or unknown). */
export function networkOfGenesis(coin: UtxoCoin, genesis: string): UtxoNetworkKind | null {
  for (const kind of ['main', 'test', 'regtest'] as const) if (coin.genesis[kind].includes(genesis)) return kind;
  return null;
}

/** Below this many coins, value × 10^8 is within 0.25 of the integer the node printed: rounding it is exact. */
const FAST_EXACT_BELOW = 10_000_000;

/**
 * A coin amount as the node wrote it: a JSON number, or, from 10 million coins up (8 digits before
 * the point), its decimal text (parseNodeJson), since a double holds 8 decimals exactly only below
 * 2^25 coins and a Dogecoin output can reach MAX_MONEY, 10 billion DOGE.
 */
export type CoinAmount = number | string;

const DECIMAL_TEXT = /^(\d+)(?:\.(\d{1,8}))?$/;

/**
 * Base units of a coin amount as the node wrote it (at most 8 decimals): exact for the decimal
 * text parseNodeJson keeps of large amounts; for a number, exact below 2^25 coins, where rounding
 * to 8 places restores the text the node printed (by multiplication where that is provably exact,
 * which is what nearly every output takes: a block's outputs are converted in one pass).
 */
export function coinsToBaseUnits(value: CoinAmount): bigint {
  if (typeof value === 'string') {
    const m = DECIMAL_TEXT.exec(value);
    if (!m) throw new Error(`not a coin amount: ${value}`);
    return BigInt(m[1]) * 100_000_000n + BigInt((m[2] ?? '').padEnd(8, '0'));
  }
  if (!Number.isFinite(value) || value < 0) throw new Error(`not a coin amount: ${value}`);
  if (value < FAST_EXACT_BELOW) return BigInt(Math.round(value * 100_000_000));
  const [whole, frac = ''] = value.toFixed(8).split('.');
  return BigInt(whole) * 100_000_000n + BigInt(frac.padEnd(8, '0'));
}

/** An amount field (`value` of an output, `amount` of scantxoutset's unspents) of 8 digits or more before the point. */
const LARGE_AMOUNT = /("(?:value|amount)"\s*:\s*)(\d{8,}(?:\.\d+)?)(?=[\s,}\]])/g;

/**
 * A Bitcoin-family node's JSON answer, with every `value` and `amount` of 10 million coins or more
 * kept as the decimal text the node wrote (CoinAmount): JSON.parse would round it to a double,
 * which loses koinu from 2^25 DOGE on (1,000,000,000.00000001 DOGE reads as 1,000,000,000). The
 * number is quoted in the text before it is parsed: such a key followed by a number cannot occur
 * inside a JSON string, whose quotes are escaped. An answer without one (nearly all) is the same
 * JSON.parse with one scan of its text before.
 */
export function parseNodeJson(text: string): unknown {
  LARGE_AMOUNT.lastIndex = 0;
  return JSON.parse(LARGE_AMOUNT.test(text) ? text.replace(LARGE_AMOUNT, '$1"$2"') : text);
}

/** A node's fee rate (coins per 1000 vbytes, as estimatesmartfee and getnetworkinfo write it) in base units. */
export const feeRateToBaseUnits = coinsToBaseUnits;
