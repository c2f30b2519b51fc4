// What the chain room offers the market: the current cost of moving a deposit out of its address.
import type { TokenSymbol } from '../tokens/index.ts';

/**
 * The current network cost of the transfer that moves a deposit of `token` out of its deposit
 * address (sweep or direct settlement), including, for a token, the gas top-up that precedes it.
 * In base units of the chain's native coin (wei, satoshi, sun, drops). Null when no node of that
 * chain is configured or none can answer now.
 */
export interface NetworkFeeQuoter {
  quoteSweepFee(token: TokenSymbol): Promise<bigint | null>;
}
