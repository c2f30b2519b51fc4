// The payments room's service: what its routes call. Each method is one use case; the JSON views
// are built here so routes only validate, call and answer.
import type { Platform } from '../platform/context.ts';
import { notFound } from '../platform/errors.ts';
// payment ids and checkout tokens: anything not id-shaped names no payment (and never reaches SQL)
import { isIdShaped } from '../platform/fields.ts';
import { listParams, LIST_DEFAULT, LIST_EVENTS } from '../platform/list-params.ts';
import type { Timers } from '../platform/timers.ts';
import { dec } from '../money/index.ts';
import { TOKENS } from '../tokens/index.ts';
import { DepositAddressDeriver, seedFromMnemonic, type WalletSeed } from '../chains/addresses/index.ts';
import { captureSettings, PAYER_NAME_CHANGED_CHANNEL, API_KEY_REVOKED_CHANNEL, MERCHANT_ACCESS_CHANGED_CHANNEL, type Merchant, type PayerNames } from '../accounts/index.ts';
import type { Actor } from '../audit/index.ts';
import type { MarketSource } from '../market/index.ts';
import { listTokens } from './pure.ts';
import { Catalog, DEFAULT_SETTINGS, type PayoutAddressSource } from './catalog.ts';
import { DepositIntake } from './intake.ts';
import { Simulator, checkSimulation } from './simulation.ts';
import { registerDeadlines } from './deadlines.ts';
import { createPayment, type CreateGuard } from './create.ts';
import { CreatedPaymentWriter } from './create-statement.ts';
import { DepositAddressReserve } from './address-reserve.ts';
import { chooseCoin } from './choose-coin.ts';
import { allowedCoins, optionsOf } from './coin.ts';
import { parseUsdField } from './create-input.ts';
import { ListTotals } from './list-totals.ts';
import { depositsOf, findMerchantPayments, findPayment, findWithDeposits, listPayments, lockPayment, NumberReserve, type PaymentScope } from './repository.ts';
import type { DepositRow, PaymentRow } from './schema.ts';
import { paymentJson, payerView, publicPaymentJson } from './views.ts';
import { paymentFilters } from './list-filters.ts';
import { dashboardSeries } from './series.ts';
import { dashboardFigures, type FailedWebhooksCounter } from './dashboard.ts';
import { EMPTY_TRAIL_SECTIONS, paymentEvents, paymentTrail, type TrailSections } from './timeline.ts';
import { PaymentGroups } from './payment-groups.ts';
import { CheckoutCache, PAYMENT_CHANGED_CHANNEL } from './checkout-cache.ts';
import { ChangeFeed } from '../platform/db/change-feed.ts';
import { PAYMENT_NOT_FOUND } from './not-found.ts';

export { PAYMENT_NOT_FOUND };

/** Who asks through /v1: the key's merchant, mode and store. */
export interface KeyCaller {
  merchant: Merchant;
  livemode: boolean;
  storeId: string | null;
  actor: Actor;
}

export interface PaymentsOptions {
  market: MarketSource;
  payoutAddresses?: PayoutAddressSource;
  failedWebhooks?: FailedWebhooksCounter;
  trailSections?: TrailSections;
  /** Who the payer pays (merchant_name, store_name), added to the payer's view. */
  payerNames?: PayerNamesSource;
}

export type PayerNamesSource = (merchantId: string, storeId: string | null) => PayerNames | Promise<PayerNames>;

type Query = Record<string, unknown>;

export class PaymentsService {
  readonly timers: Timers;
  readonly intake: DepositIntake;
  readonly catalog: Catalog;
  readonly simulator: Simulator;
  /** Payments counted under links and customers, kept from the outbox (payment-groups.ts). */
  readonly groups: PaymentGroups;
  /**
   * The changes to payments and to who is paid (merchant and store names), for what the payer's
   * view keeps in memory: this service's checkout views, and the accounts' payer names (services.ts).
   */
  readonly changes: ChangeFeed;
  /** Payer views of GET /checkout/{token} kept while unchanged (checkout-cache.ts). */
  readonly checkoutCache: CheckoutCache;
  readonly #p: Platform;
  readonly #seed: WalletSeed;
  readonly #numbers: NumberReserve;
  readonly #writer: CreatedPaymentWriter;
  readonly #deriver: DepositAddressDeriver;
  readonly #addresses: DepositAddressReserve;
  readonly #failedWebhooks: FailedWebhooksCounter;
  readonly #trail: TrailSections;
  readonly #names: PayerNamesSource;
  /** Unfiltered list totals kept between pages, on PGlite only (list-totals.ts says why). */
  readonly #totals: ListTotals | undefined;

  constructor(platform: Platform, opts: PaymentsOptions) {
    this.#p = platform;
    this.#totals = platform.db.kind === 'pglite' ? new ListTotals() : undefined;
    this.#seed = seedFromMnemonic(platform.config.walletMnemonic);
    this.#numbers = new NumberReserve(platform.db);
    this.#writer = new CreatedPaymentWriter(platform.db);
    this.#deriver = new DepositAddressDeriver(platform.config.walletMnemonic, this.#seed);
    this.#addresses = new DepositAddressReserve(this.#numbers, this.#deriver);
    this.catalog = new Catalog(opts.market, platform.config, opts.payoutAddresses ?? (async () => []));
    this.timers = platform.timers;
    this.intake = new DepositIntake(platform.db, platform.config, opts.market, (p, now, tx) => optionsOf(p, this.catalog, now, tx));
    this.simulator = new Simulator(this.timers, this.intake, opts.market, platform.config.simulationStepMs, (p, now, tx) => optionsOf(p, this.catalog, now, tx));
    registerDeadlines(this.timers, this.intake);
    this.#failedWebhooks = opts.failedWebhooks ?? (async () => 0);
    this.#trail = opts.trailSections ?? EMPTY_TRAIL_SECTIONS;
    this.#names = opts.payerNames ?? (() => ({}));
    this.groups = new PaymentGroups(() => platform.clock.now());
    this.changes = new ChangeFeed(platform.db, platform.log, [API_KEY_REVOKED_CHANNEL, MERCHANT_ACCESS_CHANGED_CHANNEL, PAYMENT_CHANGED_CHANNEL, PAYER_NAME_CHANGED_CHANNEL]);
    this.checkoutCache = new CheckoutCache(this.changes);
  }

  get #deps() {
    const { db, config } = this.#p;
    return { db, catalog: this.catalog, seed: this.#seed, numbers: this.#numbers, addresses: this.#addresses, timers: this.timers, simulator: this.simulator, allowPrivateWebhooks: config.webhookAllowPrivate, outbox: this.#p.outbox, writer: this.#writer, checkoutBase: config.checkoutUrl };
  }

  #now(): Date { return this.#p.clock.now(); }

  /** Stops the address worker thread; addresses asked for later are derived inline. */
  async close(): Promise<void> {
    await this.#deriver.close();
    this.checkoutCache.close();
    await this.changes.close();
  }

  /** The JSON of a payment; its deposits are read when not given. */
  async #view(p: PaymentRow, publicView = false, given?: readonly DepositRow[]): Promise<Record<string, unknown>> {
    const deps = given ?? (await depositsOf(this.#p.db.orm, [p.id])).get(p.id) ?? [];
    const ctx = { checkoutBase: this.#p.config.checkoutUrl, ...(p.token === '' ? { tokenOptions: await optionsOf(p, this.catalog, this.#now()) } : {}) };
    if (!publicView) return paymentJson(p, deps, ctx);
    return this.#withPayee(publicPaymentJson(p, deps, ctx), p.merchantId, p.storeId);
  }

  /** A payer's view with whom they pay (merchant_name, store_name); no extra turn when the names are at hand. */
  #withPayee(view: Record<string, unknown>, merchantId: string, storeId: string | null): Record<string, unknown> | Promise<Record<string, unknown>> {
    const names = this.#names(merchantId, storeId);
    return names instanceof Promise ? names.then((n) => Object.assign(view, n)) : Object.assign(view, names);
  }

  // ---- token listings

  async tokensForKey(c: KeyCaller, query: Query): Promise<unknown[]> {
    const amount = query.amount_usd === undefined ? undefined : parseUsdField('amount_usd', query.amount_usd);
    const settings = captureSettings(c.merchant);
    const ctx = await this.catalog.pricingContext(c.merchant.id, settings, c.livemode, this.#now(), amount);
    return listTokens(this.catalog.offered(settings, c.livemode), ctx, amount);
  }

  async publicTokens(livemode: boolean): Promise<unknown[]> {
    const ctx = await this.catalog.context(null, DEFAULT_SETTINGS, livemode, this.#now());
    return listTokens(TOKENS, ctx);
  }

  async merchantTokens(m: Merchant, livemode: boolean): Promise<unknown[]> {
    const settings = captureSettings(m);
    const ctx = await this.catalog.context(m.id, settings, livemode, this.#now());
    return listTokens(TOKENS, ctx).map((info) => {
      const route = ctx.route(info.token);
      const wallet = route.kind === 'as_is' || route.kind === 'awaits_address' || route.kind === 'swap' || route.kind === 'exchange';
      return {
        ...info,
        enabled: settings.enabled_tokens.includes(info.token),
        settles_to: wallet ? 'wallet' : 'balance',
        ...(route.kind === 'swap' || route.kind === 'exchange' ? { paid_out_in: route.to } : {}),
      };
    });
  }

  // ---- creation and reads

  async create(c: KeyCaller, body: Record<string, unknown>, guard?: CreateGuard): Promise<{ payment: Record<string, unknown>; created: boolean }> {
    const r = await createPayment(this.#deps, c, body, this.#now(), guard);
    return { payment: r.view ?? await this.#view(r.payment, false, r.created ? [] : undefined), created: r.created };
  }

  #keyScope(c: KeyCaller): PaymentScope {
    return { merchantId: c.merchant.id, livemode: c.livemode, storeId: c.storeId ?? undefined };
  }

  async #forKey(c: KeyCaller, id: string): Promise<PaymentRow> {
    if (!isIdShaped(id)) throw notFound(PAYMENT_NOT_FOUND);
    const p = await findPayment(this.#p.db.orm, id, this.#keyScope(c));
    if (!p) throw notFound(PAYMENT_NOT_FOUND);
    return p;
  }

  async #forMerchant(merchantId: string, id: string): Promise<PaymentRow> {
    if (!isIdShaped(id)) throw notFound(PAYMENT_NOT_FOUND);
    const p = await findPayment(this.#p.db.orm, id, { merchantId });
    if (!p) throw notFound(PAYMENT_NOT_FOUND);
    return p;
  }

  async #byCheckout(token: string): Promise<PaymentRow> {
    return (await this.#withDeposits({ checkoutToken: token })).payment;
  }

  async #withDeposits(by: Parameters<typeof findWithDeposits>[1]) {
    if (!isIdShaped('checkoutToken' in by ? by.checkoutToken : by.id)) throw notFound(PAYMENT_NOT_FOUND);
    const found = await findWithDeposits(this.#p.db.orm, by);
    if (!found) throw notFound(PAYMENT_NOT_FOUND);
    return found;
  }

  async getForKey(c: KeyCaller, id: string) {
    const f = await this.#withDeposits({ id, scope: this.#keyScope(c) });
    return this.#view(f.payment, false, f.deposits);
  }
  async getForMerchant(merchantId: string, id: string) {
    const f = await this.#withDeposits({ id, scope: { merchantId } });
    return this.#view(f.payment, false, f.deposits);
  }
  /** The payer's view of a merchant's view of a payment, with who is paid, as #view gives it. */
  async payerViewOf(view: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.#withPayee(payerView(view), String(view.merchant_id), typeof view.store_id === 'string' ? view.store_id : null);
  }

  async checkoutView(token: string) {
    const f = await this.#withDeposits({ checkoutToken: token });
    return this.#view(f.payment, true, f.deposits);
  }

  /**
   * GET /checkout/{token}'s body: checkoutView() as JSON text, exactly as the route would serialise
   * it, from the views kept while unchanged (checkout-cache.ts) when it can be.
   */
  async checkoutBody(token: string): Promise<string> {
    const cache = this.checkoutCache;
    let kept = cache.get(token);
    if (!kept) {
      const generation = cache.mark();
      const f = await this.#withDeposits({ checkoutToken: token });
      const p = f.payment;
      if (p.token === '') return JSON.stringify(await this.#view(p, true, f.deposits));
      const ctx = { checkoutBase: this.#p.config.checkoutUrl };
      kept = { paymentId: p.id, merchantId: p.merchantId, storeId: p.storeId, json: JSON.stringify(publicPaymentJson(p, f.deposits, ctx)) };
      cache.put(token, kept, generation);
    }
    // Who is paid is added last, as #view adds it: a view's own keys never include these names.
    const named = this.#names(kept.merchantId, kept.storeId);
    const names = JSON.stringify(named instanceof Promise ? await named : named);
    return names === '{}' ? kept.json : `${kept.json.slice(0, -1)},${names.slice(1)}`;
  }

  async #list(scope: PaymentScope, query: Query) {
    const page = listParams(query, LIST_DEFAULT);
    const f = paymentFilters(query, scope.storeId === undefined);
    const { rows, total } = await listPayments(this.#p.db.orm, scope, f, page, this.#totals);
    const deps = await depositsOf(this.#p.db.orm, rows.map((r) => r.id));
    const payments = [];
    for (const r of rows) payments.push(await this.#view(r, false, deps.get(r.id) ?? []));
    return { payments, total, limit: page.limit, offset: page.offset };
  }

  /** The merchant's views of its payments by id, in the order given (unknown ids left out). */
  async viewsByIds(merchantId: string, ids: readonly string[]): Promise<Record<string, unknown>[]> {
    if (ids.length === 0) return [];
    const orm = this.#p.db.orm;
    const rows = await findMerchantPayments(orm, merchantId, ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const deps = await depositsOf(orm, rows.map((r) => r.id));
    const out: Record<string, unknown>[] = [];
    for (const id of ids) {
      const r = byId.get(id);
      if (r) out.push(await this.#view(r, false, deps.get(id) ?? []));
    }
    return out;
  }

  listForKey(c: KeyCaller, query: Query) { return this.#list(this.#keyScope(c), query); }
  listForMerchant(merchantId: string, livemode: boolean, query: Query) { return this.#list({ merchantId, livemode }, query); }

  // ---- coin choice and simulation

  async chooseByCheckout(token: string, coin: unknown) {
    return this.#view(await chooseCoin(this.#deps, await this.#byCheckout(token), coin, this.#now()), true);
  }

  async chooseByKey(c: KeyCaller, id: string, coin: unknown) {
    return this.#view(await chooseCoin(this.#deps, await this.#forKey(c, id), coin, this.#now()));
  }

  async #simulate(p: PaymentRow, outcome: unknown): Promise<PaymentRow> {
    // Checked before locking for a quick answer, then again under the lock (a running one may have started).
    checkSimulation(p, outcome);
    const now = this.#now();
    return this.#p.db.transaction(async (tx) => {
      const locked = (await lockPayment(tx, p.id))!;
      return this.simulator.start(tx, locked, checkSimulation(locked, outcome), now);
    });
  }

  async simulateByKey(c: KeyCaller, id: string, outcome: unknown) { return this.#view(await this.#simulate(await this.#forKey(c, id), outcome)); }
  async simulateByCheckout(token: string, outcome: unknown) { return this.#view(await this.#simulate(await this.#byCheckout(token), outcome), true); }
  async simulateByMerchant(merchantId: string, id: string, outcome: unknown) { return this.#view(await this.#simulate(await this.#forMerchant(merchantId, id), outcome)); }

  // ---- timeline, trail, dashboard

  async events(merchantId: string, id: string, query: Query) {
    const p = await this.#forMerchant(merchantId, id);
    const page = listParams(query, LIST_EVENTS);
    const { events, total } = await paymentEvents(this.#p.db.orm, p.id, page);
    return { events, total, limit: page.limit, offset: page.offset };
  }

  async trail(merchantId: string, id: string) {
    const p = await this.#forMerchant(merchantId, id);
    const deps = (await depositsOf(this.#p.db.orm, [p.id])).get(p.id) ?? [];
    return paymentTrail(this.#p.db.orm, p, await this.#view(p), deps, this.#trail, this.#now());
  }

  dashboard(merchantId: string, livemode: boolean) {
    return dashboardFigures(this.#p.db.orm, merchantId, livemode, this.#now(), this.#failedWebhooks);
  }

  /** The day-by-day series of the dashboard's chart (README "Dashboard additions"). */
  series(merchantId: string, livemode: boolean, days: unknown) {
    return dashboardSeries(this.#p.db.orm, merchantId, livemode, this.#now(), days);
  }

  /** Runs every due timer (deadlines, simulation steps) at `now`: the scheduler's work, for tests. */
  runDue(now: Date = this.#now()): Promise<number> {
    return this.timers.runDue(now);
  }


}


