// Input shapes of the pure settlement planner: merchant settings captured at payment creation,
// payout addresses in force for the mode, and the market data the planner prices with.
import type { Decimal } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';

/** Merchant `settlement` setting (spec 1, Settlement modes). */
export type SettlementSetting = 'direct' | 'custodial' | 'scheduled';
/** Merchant `convert_into` setting (direct rule 4). */
export type ConvertInto = 'cheapest' | 'order' | TokenSymbol;

/** A payout address in force for the payment's mode (test addresses for test payments). */
export interface PayoutAddressInput {
  id: string;
  token: TokenSymbol;
  address: string;
  /** XRP only. */
  tag?: number;
  default: boolean;
  created_at: Date;
  /** When direct settlement starts using it (rule 2). */
  active_at: Date;
  /**
   * Why no payout may go to it (the gateway's own address, a token contract: one stored before those
   * were refused; live only): it is never a settlement's destination (routing.ts).
   */
  refused?: string;
}

/** A swap quote on the coin's own network (rule 5). */
export interface SwapQuote {
  from: TokenSymbol;
  to: TokenSymbol;
  /** Units of `to` one unit of `from` fetches at the swap's price. */
  price: Decimal;
  /**
   * Base units of `to` the swap is expected to give for `amount_in` (what the swap router answers).
   * Absent: `amount_in × price`, i.e. exactly the quote.
   */
  expected_out?: bigint;
  /** The amount of `from` (base units) the expected output was asked for. */
  amount_in?: bigint;
}

/** Market data (CONTRACT.md "Static market data"), dollar figures as Decimal. */
export interface MarketQuotes {
  /** Dollar price of one token. Required for every coin the planner touches. */
  rates: Partial<Record<TokenSymbol, Decimal>>;
  /** Fixed part of the network fee in dollars (moving a deposit out of its address). */
  network_fee_usd: Partial<Record<TokenSymbol, Decimal>>;
  /** Least an exchange takes for a cross-network conversion of that coin. */
  exchange_min_usd: Partial<Record<TokenSymbol, Decimal>>;
  swap_quotes?: SwapQuote[];
  /** Exchange state for cross-network conversion; absent means available. */
  exchange?: { available: boolean; note?: string };
}
