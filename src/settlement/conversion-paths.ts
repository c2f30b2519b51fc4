// How one coin can become another (direct rule 5): a swap on its own network, or an exchange
// across networks. Anything else (e.g. USDT_TRC20 into TRX) is not convertible.
import { dec, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';

export type ConversionVia = 'swap' | 'exchange' | 'platform';

/** Conversion fee shares (spec 1, Fees): swap/exchange into a payout coin; bought for a balance. */
export const CONVERT_FEE_BPS = 50;
export const PLATFORM_FEE_BPS = 150;
/** A cross-network conversion must leave the exchange its minimum with a tenth to spare. */
export const EXCHANGE_MIN_MARGIN = dec('1.1');
/** The balance coin of custodial and scheduled merchants, and of rule 6 fallbacks. */
export const BALANCE_TOKEN: TokenSymbol = 'USDT_TRC20';

const SWAP_GROUPS: readonly (readonly TokenSymbol[])[] = [
  ['ETH', 'USDT_ERC20', 'USDC_ERC20'],
  ['BNB', 'USDT_BEP20', 'USDC_BEP20'],
];
/** Tron swaps go one way only: TRX into USDT. */
const ONE_WAY_SWAPS: readonly (readonly [TokenSymbol, TokenSymbol])[] = [['TRX', 'USDT_TRC20']];

export function canSwap(from: TokenSymbol, to: TokenSymbol): boolean {
  if (from === to) return false;
  if (SWAP_GROUPS.some((g) => g.includes(from) && g.includes(to))) return true;
  return ONE_WAY_SWAPS.some(([f, t]) => f === from && t === to);
}

/** `swap` on the coin's own network, `exchange` across networks, undefined when not convertible. */
export function conversionVia(from: TokenSymbol, to: TokenSymbol): 'swap' | 'exchange' | undefined {
  if (canSwap(from, to)) return 'swap';
  if (TOKEN_DEFS[from].chain !== TOKEN_DEFS[to].chain) return 'exchange';
  return undefined;
}

/** The swap price is a stablecoin pair's when both ends are stablecoins (1% tolerance, else 0.5%). */
export const isStablePair = (from: TokenSymbol, to: TokenSymbol): boolean => TOKEN_DEFS[from].stablecoin && TOKEN_DEFS[to].stablecoin;

/** A plan needed the market rate of a coin that has none (live: no current price). */
export class NoMarketRateError extends Error {
  constructor(token: TokenSymbol) {
    super(`no market rate for ${token}`);
    this.name = 'NoMarketRateError';
  }
}

export function rateOf(rates: Partial<Record<TokenSymbol, Decimal>>, token: TokenSymbol): Decimal {
  const r = rates[token];
  if (!r || r.lte(0)) throw new NoMarketRateError(token);
  return r;
}
