// The settlement room's service object: what routes, workers and other rooms use.
import type { Platform } from '../platform/context.ts';
import type { Database, Executor, Tx } from '../platform/db/index.ts';
import type { Subscriber } from '../events/index.ts';
import type { Actor } from '../audit/index.ts';
import type { MarketSource } from '../market/index.ts';
import { completeSettlement, failSettlement, replanDue, settlePayment, type ExecutorDeps } from './executor.ts';
import type { DepositsPort, OwnAddressCheck, ServiceFeePort, SettleInput, TransferPort } from './ports.ts';
import { PayoutAddressService } from './payout-address-service.ts';
import { PayoutAddressCache } from './payout-address-cache.ts';
import { PayoutService } from './payouts/payout-service.ts';
import { runScheduledPayouts } from './payouts/scheduled.ts';
import { retryAutoPayouts } from './payouts/auto-retry.ts';
import { adjustLedger } from './adjustments.ts';
import { sendWaitingTransfers } from './waiting-transfers.ts';
import { advanceConversions } from './conversions.ts';
import { ConversionWorker } from './conversion-worker.ts';
import { settlementSubscriber } from './subscriber.ts';
import type { LedgerRow, PayoutRow, SettlementRow } from './schema.ts';
import type { PayoutAddressInput } from './planner.ts';
import { addressesInForce } from './address-store.ts';
import { checkedAddresses } from './refused-address.ts';
import { SETTLEMENT_STATUSES, SETTLEMENT_STATUS_INVALID, paymentLedger, paymentSettlements, settlementsForOperator } from './statement.ts';
import { retrySettlement, returnSettlement } from './failed-settlements.ts';
import { oneOfFilter } from '../platform/fields.ts';

export class SettlementService {
  readonly platform: Platform;
  readonly market: MarketSource;
  readonly addresses: PayoutAddressService;
  readonly payouts: PayoutService;
  #transfers: TransferPort | null;
  #fees: ServiceFeePort | null = null;
  readonly #addressCache = new PayoutAddressCache();
  readonly #ownAddresses: OwnAddressCheck;

  /** `ownAddresses`: where no payout address may point (the service's own addresses, token contracts). */
  constructor(platform: Platform, opts: { market: MarketSource; ownAddresses: OwnAddressCheck; transfers?: TransferPort | null }) {
    this.platform = platform;
    this.market = opts.market;
    this.#transfers = opts.transfers ?? null;
    this.addresses = new PayoutAddressService(platform.db, platform.clock, opts.ownAddresses, (merchantId) => this.#addressCache.forget(merchantId));
    this.#ownAddresses = opts.ownAddresses;
    this.payouts = new PayoutService(platform.db, platform.clock, this.market, opts.ownAddresses, () => this.#transfers);
  }

  /** The chain room plugs its transfer service in; until then live direct settlements wait. */
  useTransfers(port: TransferPort | null): void {
    this.#transfers = port;
  }

  /** The referral program plugs its commissions in: told of each live service fee as it becomes final. */
  useServiceFees(port: ServiceFeePort | null): void {
    this.#fees = port;
  }

  get deps(): ExecutorDeps {
    return { market: this.market, transfers: this.#transfers, fees: this.#fees, ownAddresses: this.#ownAddresses };
  }

  settle(ex: Database | Tx, input: SettleInput): Promise<SettlementRow[]> {
    return settlePayment(ex, input, this.deps, this.platform.clock.now());
  }

  /**
   * Plans waiting settlements again when due, sends those that waited for a transfer service, and
   * makes the automatic payouts (rule 6) that waited for a USDT address.
   */
  async replanDue(now = this.platform.clock.now()): Promise<number> {
    const n = await replanDue(this.platform.db, this.deps, now);
    if (this.#transfers) await sendWaitingTransfers(this.platform.db, this.#transfers, this.deps, now);
    await this.advanceConversions(now);
    await retryAutoPayouts(this.platform.db, this.market.snapshot(true), this.#ownAddresses, now);
    return n;
  }

  /** Moves every live conversion the service's treasury carries out one step where it can (conversions.ts). */
  advanceConversions(now = this.platform.clock.now()): Promise<number> {
    return advanceConversions(this.platform.db, this.deps, now, this.platform.log);
  }

  /** The background worker of live conversions, looking every `intervalMs`. */
  conversionWorker(intervalMs: number): ConversionWorker {
    return new ConversionWorker(() => this.advanceConversions(), this.platform.log, intervalMs);
  }

  runScheduledPayouts(now = this.platform.clock.now(), since: Date = now): Promise<PayoutRow[]> {
    // Payouts are live only.
    return runScheduledPayouts(this.platform.db, this.market.snapshot(true), this.#ownAddresses, now, since);
  }

  completeSettlement(tx: Tx, id: string, txId: string): Promise<SettlementRow> {
    return completeSettlement(tx, id, txId, this.platform.clock.now(), { fees: this.#fees });
  }

  failSettlement(tx: Tx, id: string, note: string): Promise<SettlementRow> {
    return failSettlement(tx, id, note, this.platform.clock.now());
  }

  /** The operator lists settlements across merchants (`status` filter), newest first, a page at a time. */
  forOperator(status: string | undefined, limit: number, offset: number): Promise<{ settlements: SettlementRow[]; total: number }> {
    return settlementsForOperator(this.platform.db.orm, oneOfFilter(status, SETTLEMENT_STATUSES, SETTLEMENT_STATUS_INVALID), limit, offset);
  }

  /** The operator tries a failed direct settlement again. */
  retry(id: string, actor: Actor): Promise<SettlementRow> {
    return this.platform.db.transaction((tx) => retrySettlement(tx, id, this.#transfers, this.#ownAddresses, actor, this.platform.clock.now()));
  }

  /** The operator credits a failed direct settlement to the merchant's balance. */
  returnToBalance(id: string, body: Record<string, unknown>, actor: Actor): Promise<SettlementRow> {
    return this.platform.db.transaction((tx) => returnSettlement(tx, id, body, this.#transfers, actor, this.platform.clock.now(), this.#fees));
  }

  adjust(body: Record<string, unknown>, actor: Actor): Promise<LedgerRow> {
    return adjustLedger(this.platform.db, this.platform.clock, this.market, body, actor);
  }

  /**
   * Payout addresses in force for a merchant's mode, as pricing reads them (kept a moment:
   * payout-address-cache.ts); through `ex` when the caller holds a transaction (PGlite has one
   * connection: a read beside it would wait for it to end).
   */
  async payoutAddressInputs(merchantId: string, livemode: boolean, ex: Executor = this.platform.db.orm): Promise<PayoutAddressInput[]> {
    // with those no payout may go to marked: pricing offers the route the settlement will take
    return this.#addressCache.get(merchantId, livemode, async () => checkedAddresses(ex, this.#ownAddresses, await addressesInForce(ex, merchantId, livemode)));
  }

  /** The payment trail's `settlements` ({settlement, transfers}) and `ledger` sections. */
  trailSettlements(paymentId: string): Promise<unknown[]> {
    return paymentSettlements(this.platform.db.orm, paymentId);
  }

  trailLedger(paymentId: string): Promise<unknown[]> {
    return paymentLedger(this.platform.db.orm, paymentId);
  }

  /** The outbox subscriber that settles closed payments, given the payments room's DepositsPort. */
  subscriber(deposits: DepositsPort): Subscriber {
    return settlementSubscriber(this, deposits);
  }
}
