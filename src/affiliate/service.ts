// The referral program's service object: what routes, the signup and the settlement use.
import { and, eq, sql } from 'drizzle-orm';
import type { Platform } from '../platform/context.ts';
import type { Executor, Tx } from '../platform/db/index.ts';
import { notFound } from '../platform/errors.ts';
import { createBurstLimiter, type BurstLimiter } from '../platform/burst-limit.ts';
import type { Actor } from '../audit/index.ts';
import type { SignupEnrollment } from '../accounts/index.ts';
import { UNLIMITED as UNLIMITED_RECHECK, type Recheck } from '../accounts/recheck-limit.ts';
import type { AddressRetiredPort, FinalServiceFee, OwnAddressCheck } from '../settlement/index.ts';
import type { MarketSource } from '../market/index.ts';
import { formatUsd } from '../money/index.ts';
import { affiliates } from './schema.ts';
import { affiliateBalanceJson } from './json.ts';
import { normalizeCode } from './code.ts';
import { ensureAffiliate } from './balance.ts';
import { attachReferral, enroll } from './enroll.ts';
import { referralCounts, voidReferral } from './referrals.ts';
import { creditCommission } from './commissions.ts';
import { adjustReferralBalance } from './adjustments.ts';
import { requestPayout, type PayoutRequester } from './payouts/request.ts';
import { cancelPayoutsTo, movePayout, type PayoutMove } from './payouts/moves.ts';
import { REFERRAL_TOKEN } from './terms.ts';
import { COULD_NOT_CANCEL, COULD_NOT_REQUEST, failsAs } from './payouts/errors.ts';

/** Spec 8: referral payout requests, 1 a second per user, bursts of 5. */
export const PAYOUT_REQUEST_RATE = { perSecond: 1, burst: 5 };

export class AffiliateService {
  readonly platform: Platform;
  readonly limiter: BurstLimiter;
  #market: MarketSource;
  readonly #ownAddresses: OwnAddressCheck;

  /** `ownAddresses`: refuses a payout to the service's own addresses or a token contract. */
  constructor(platform: Platform, opts: { market: MarketSource; ownAddresses: OwnAddressCheck; limiter?: BurstLimiter }) {
    this.platform = platform;
    this.#market = opts.market;
    this.#ownAddresses = opts.ownAddresses;
    this.limiter = opts.limiter ?? createBurstLimiter(platform.config.redisUrl, platform.log);
  }

  get terms() {
    return this.platform.config.referral;
  }

  /** The market whose USDT (Tron) network fee prices a referral payout. */
  useMarket(market: MarketSource): void {
    this.#market = market;
  }

  /** The accounts room's signup hook: the new merchant's code, and its referral when its code names one. */
  readonly enroll = (tx: Tx, s: SignupEnrollment): Promise<void> => enroll(tx, s, this.terms.months);

  /** The settlement room's service-fee port: a commission for a referred merchant's live deposit. */
  readonly creditCommission = (tx: Executor, fee: FinalServiceFee): Promise<void> => creditCommission(tx, fee, this.terms.rateBps);

  /**
   * The settlement room's retired-address port: a live USDT (Tron) payout address deleted or moved
   * to another address takes the referral payouts still requested to it with it (canceled, the
   * amounts back), as merchant payouts.
   */
  readonly addressRetired: AddressRetiredPort = async (tx, address, by, reason, now) => {
    if (!address.livemode || address.token !== REFERRAL_TOKEN) return;
    await cancelPayoutsTo(tx, address.merchantId, address.id, { by: by.userId, actor: by.actor, reason }, now);
  };

  /** `GET /merchant/affiliate`: code, link, rate, clicks, referrals, balance and payout terms. */
  async overview(merchantId: string): Promise<Record<string, unknown>> {
    const { db, clock, config } = this.platform;
    const a = await ensureAffiliate(db.orm, merchantId, clock.now());
    return {
      code: a.code, link: `${config.publicUrl}/signup?ref=${a.code}`, rate_bps: this.terms.rateBps, clicks: a.clicks,
      referrals: await referralCounts(db.orm, merchantId), balance: affiliateBalanceJson(a),
      payouts: { min_payout_usd: formatUsd(this.terms.minPayoutUsd), payout_days: this.terms.payoutDays },
    };
  }

  /** Counts a click on a referral link; 404 for an unknown code or a suspended merchant's. */
  async click(code: string): Promise<void> {
    const c = normalizeCode(code);
    const hit = c === null ? [] : await this.platform.db.orm.update(affiliates).set({ clicks: sql`${affiliates.clicks} + 1` })
      .where(and(eq(affiliates.code, c), sql`exists (select 1 from merchants m where m.id = ${affiliates.merchantId} and m.status = 'active')`))
      .returning({ id: affiliates.merchantId });
    if (hit.length === 0) throw notFound();
  }

  /** `recheck`: the member's limit of wrong passwords, around the password of an `address` (step 4). */
  requestPayout(who: PayoutRequester, body: unknown, recheck: Recheck = UNLIMITED_RECHECK): Promise<Record<string, unknown>> {
    const { db, clock, log } = this.platform;
    return failsAs(COULD_NOT_REQUEST, log, () => requestPayout({ db, market: this.#market, terms: this.terms, ownAddresses: this.#ownAddresses, now: clock.now(), recheck }, who, body));
  }

  cancelPayout(merchantId: string, userId: string, id: string, actor: Actor): Promise<Record<string, unknown>> {
    return failsAs(COULD_NOT_CANCEL, this.platform.log, () => this.movePayout(id, merchantId, { to: 'canceled', by: userId }, actor));
  }

  /** A move of spec 3 "Referral payout status"; `merchantId` null for the operator (any affiliate's payout). */
  movePayout(id: string, merchantId: string | null, move: PayoutMove, actor: Actor): Promise<Record<string, unknown>> {
    return movePayout(this.platform.db, id, merchantId, move, actor, this.platform.clock.now());
  }

  attachReferral(body: Record<string, unknown>, actor: Actor): Promise<Record<string, unknown>> {
    return attachReferral(this.platform.db, body, this.terms.months, actor, this.platform.clock.now());
  }

  voidReferral(merchantId: string, reason: string, actor: Actor): Promise<Record<string, unknown>> {
    return voidReferral(this.platform.db, merchantId, reason, actor, this.platform.clock.now());
  }

  adjust(body: Record<string, unknown>, actor: Actor): Promise<Record<string, unknown>> {
    return adjustReferralBalance(this.platform.db, body, actor, this.platform.clock.now());
  }

  async close(): Promise<void> {
    await this.limiter.close?.();
  }
}
