// Coin listings and prices for one merchant and mode: the market snapshot, the settings a payment
// keeps, the settlement route of each coin (its conversion share is network_fee_bps) and, in live
// mode, which chains have a node. Used by GET /v1/tokens, /tokens, /merchant/tokens and pricing.
import type { Config } from '../config.ts';
import { quotientUnitsRoundedUp, type Decimal } from '../money/index.ts';
import { TOKENS, contractMissing, tokenContracts, tokenDef, type TokenSymbol } from '../tokens/index.ts';
import { noContract, noNode } from './coin.ts';
import type { MarketData, MarketSource } from '../market/index.ts';
import { marketQuotes, routeCoin, type ConvertInto, type PayoutAddressInput, type Route } from '../settlement/planner.ts';
import type { CapturedSettings } from '../accounts/index.ts';
import type { Executor } from '../platform/db/index.ts';
import type { ConversionRoute, ListingContext, MerchantPricing } from './pure.ts';

/**
 * Payout addresses in force for a merchant's mode; the settlement room provides them (none until
 * then). `ex`: the transaction a caller holds, read through it (on PGlite's one connection a read
 * beside an open transaction would wait for it).
 */
export type PayoutAddressSource = (merchantId: string, livemode: boolean, ex?: Executor) => Promise<PayoutAddressInput[]>;

/** The settings of a merchant that never changed anything: what GET /tokens lists for. */
export const DEFAULT_SETTINGS: CapturedSettings = {
  fee_bps: 100, underpaid_tolerance_bps: 50, accept_other_assets: false, settlement: 'direct', payout_schedule: 'daily',
  fees_paid_by_customer: true, convert_into: 'cheapest', hide_below_minimum: false, enabled_tokens: [...TOKENS],
};

export interface PricingContext extends ListingContext {
  livemode: boolean;
  /** The settlement route of a coin for this merchant and mode. */
  route: (token: TokenSymbol) => Route;
}

/** Pricing's view of a settlement route: how the coin reaches the merchant. */
export function conversionRouteOf(route: Route): ConversionRoute {
  switch (route.kind) {
    case 'swap': return 'swap';
    case 'exchange': return 'exchange';
    case 'platform': return 'platform';
    case 'balance_fallback': return route.from === 'USDT_TRC20' ? 'none' : 'platform';
    default: return 'none';
  }
}

export const pricingOf = (s: CapturedSettings): MerchantPricing => ({
  feeBps: s.fee_bps, feesPaidByCustomer: s.fees_paid_by_customer, hideBelowMinimum: s.hide_below_minimum,
});

export class Catalog {
  readonly #market: MarketSource;
  readonly #config: Config;
  readonly #addresses: PayoutAddressSource;
  /** The token contract of each token (TOKEN_CONTRACTS, else mainnet). */
  readonly #contracts: Partial<Record<TokenSymbol, string>>;

  constructor(market: MarketSource, config: Config, addresses: PayoutAddressSource) {
    this.#market = market;
    this.#config = config;
    this.#addresses = addresses;
    this.#contracts = Object.assign({}, ...(['ethereum', 'bsc', 'tron'] as const).map((c) => tokenContracts(c, config.tokenContracts)));
  }

  /** The figures a mode prices from (test mode never depends on live prices). */
  market(livemode: boolean): MarketData {
    return this.#market.snapshot(livemode);
  }

  /** A live coin needs a node on its chain (CONTRACT.md); test mode never does. */
  available(token: TokenSymbol, livemode: boolean): boolean {
    return this.unavailable(token, livemode) === null;
  }

  /**
   * Why a coin cannot be paid in a mode, null when it can: live, a chain without a node, or a token
   * whose contract has no code on that node (CONTRACT.md TOKEN_CONTRACTS: nothing would see its deposits).
   */
  unavailable(token: TokenSymbol, livemode: boolean): string | null {
    if (!livemode) return null;
    const chain = tokenDef(token).chain;
    if (this.#config.rpc[chain].length === 0) return noNode(token);
    const contract = this.#contracts[token];
    return contract !== undefined && contractMissing(token, contract) ? noContract(token) : null;
  }

  /** Listing and pricing context of a merchant's settings in a mode; `usdAmount` sizes the route's conversion. */
  context(merchantId: string | null, settings: CapturedSettings, livemode: boolean, now: Date, usdAmount?: Decimal): Promise<PricingContext> {
    return this.#context(merchantId, settings, livemode, now, usdAmount, true);
  }

  /**
   * The same context for prices only (routeOf, not route): payout addresses are read only where they
   * can change a price, a live direct-settlement merchant's. In test mode a coin is never converted
   * and a custodial merchant's conversion does not depend on them, so a payment's creation there
   * skips that query (it is the hottest write of the service). `ex`: see PayoutAddressSource.
   */
  pricingContext(merchantId: string | null, settings: CapturedSettings, livemode: boolean, now: Date, usdAmount?: Decimal, ex?: Executor): Promise<ListingContext> {
    return this.#context(merchantId, settings, livemode, now, usdAmount, livemode && settings.settlement === 'direct', ex);
  }

  async #context(merchantId: string | null, settings: CapturedSettings, livemode: boolean, now: Date, usdAmount: Decimal | undefined, readAddresses: boolean, ex?: Executor): Promise<PricingContext> {
    const market = this.market(livemode);
    const quotes = marketQuotes(market);
    const addresses = merchantId && readAddresses ? await this.#addresses(merchantId, livemode, ex) : [];
    // Routes are worked out on first use: a payment in one coin needs one, a listing all twelve.
    const routes = new Map<TokenSymbol, Route>();
    const routeOf = (token: TokenSymbol): Route => {
      let r = routes.get(token);
      if (!r) {
        const def = tokenDef(token);
        const amount = usdAmount ? quotientUnitsRoundedUp(usdAmount, market[token].rate, def.precision, def.decimals) : 0n;
        r = routeCoin({ token, livemode, settlement: settings.settlement, convert_into: settings.convert_into as ConvertInto, addresses, market: quotes, amount, now, pricing: true });
        routes.set(token, r);
      }
      return r;
    };
    return {
      livemode, route: routeOf, market,
      merchant: pricingOf(settings),
      routeOf: (t) => conversionRouteOf(routeOf(t)),
      confirmations: this.#config.confirmations,
    };
  }

  /** Coins a payment may be offered in: enabled, and in live mode on a chain with a node. */
  offered(settings: CapturedSettings, livemode: boolean): TokenSymbol[] {
    return TOKENS.filter((t) => settings.enabled_tokens.includes(t) && this.available(t, livemode));
  }
}

