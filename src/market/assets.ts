// What the price APIs quote: nine assets behind the twelve tokens (USDT on three chains is one
// asset, USDC on two), and which coin pays a token's network fee.
import type { Chain } from '../config.ts';
import { TOKENS, tokenDef, type TokenSymbol } from '../tokens/index.ts';

export const MARKET_ASSETS = ['BTC', 'LTC', 'DOGE', 'ETH', 'BNB', 'TRX', 'XRP', 'USDT', 'USDC'] as const;
export type MarketAsset = (typeof MARKET_ASSETS)[number];

/** The asset a token's price is the price of. */
export function assetOf(token: TokenSymbol): MarketAsset {
  if (token.startsWith('USDT_')) return 'USDT';
  if (token.startsWith('USDC_')) return 'USDC';
  return token as MarketAsset;
}

export const isStableAsset = (a: MarketAsset): boolean => a === 'USDT' || a === 'USDC';

/** The chain's own coin: it pays the gas of every transfer on that chain (ETH for USDT_ERC20). */
export function nativeTokenOf(chain: Chain): TokenSymbol {
  const native = TOKENS.find((t) => tokenDef(t).chain === chain && tokenDef(t).native);
  if (!native) throw new Error(`no native coin on ${chain}`);
  return native;
}
