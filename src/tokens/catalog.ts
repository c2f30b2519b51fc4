// The twelve tokens of the spec: chain, on-chain decimals, display precision, contracts.
import type { Chain } from '../config.ts';

export const TOKENS = [
  'BTC', 'LTC', 'DOGE', 'ETH', 'USDT_ERC20', 'USDC_ERC20', 'BNB', 'USDT_BEP20', 'USDC_BEP20', 'TRX', 'USDT_TRC20', 'XRP',
] as const;
export type TokenSymbol = (typeof TOKENS)[number];

export interface TokenDef {
  token: TokenSymbol;
  chain: Chain;
  /** Decimals of the base unit on chain (satoshi, wei, sun, drop, token decimals). */
  decimals: number;
  /** Decimals a crypto amount is rounded (up) to: 8 for BTC, LTC, DOGE, ETH, BNB; 6 for the rest. */
  precision: number;
  /** USDT and USDC: one token is one dollar, `usd_rate` is exactly 1. */
  stablecoin: boolean;
  /** The chain's own coin (pays gas) rather than a token contract. */
  native: boolean;
  /** Mainnet contract of a token; TOKEN_CONTRACTS overrides it for test networks and local nodes. */
  contract?: string;
}

const def = (token: TokenSymbol, chain: Chain, decimals: number, precision: number, extra: Partial<TokenDef> = {}): TokenDef =>
  ({ token, chain, decimals, precision, stablecoin: false, native: true, ...extra });

export const TOKEN_DEFS: Record<TokenSymbol, TokenDef> = {
  BTC: def('BTC', 'bitcoin', 8, 8),
  LTC: def('LTC', 'litecoin', 8, 8),
  DOGE: def('DOGE', 'dogecoin', 8, 8),
  ETH: def('ETH', 'ethereum', 18, 8),
  USDT_ERC20: def('USDT_ERC20', 'ethereum', 6, 6, { stablecoin: true, native: false, contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7' }),
  USDC_ERC20: def('USDC_ERC20', 'ethereum', 6, 6, { stablecoin: true, native: false, contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' }),
  BNB: def('BNB', 'bsc', 18, 8),
  USDT_BEP20: def('USDT_BEP20', 'bsc', 18, 6, { stablecoin: true, native: false, contract: '0x55d398326f99059fF775485246999027B3197955' }),
  USDC_BEP20: def('USDC_BEP20', 'bsc', 18, 6, { stablecoin: true, native: false, contract: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d' }),
  TRX: def('TRX', 'tron', 6, 6),
  USDT_TRC20: def('USDT_TRC20', 'tron', 6, 6, { stablecoin: true, native: false, contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }),
  XRP: def('XRP', 'xrp', 6, 6),
};

/** Spec 7: a token symbol the gateway does not know. */
export const unsupportedToken = (t: string): string => `unsupported token: ${t}`;

export function isToken(value: unknown): value is TokenSymbol {
  return typeof value === 'string' && (TOKENS as readonly string[]).includes(value);
}

export function tokenDef(token: TokenSymbol): TokenDef {
  return TOKEN_DEFS[token];
}

export const tokensOnChain = (chain: Chain): TokenDef[] => TOKENS.map((t) => TOKEN_DEFS[t]).filter((d) => d.chain === chain);
