// POST /v1/payments: a new payment, or the open one of the same order_id in the same scope (safe
// retry). The partial unique index on open payments decides a race: the loser's insert is refused
// inside a savepoint and it answers the winner's payment.
import type { Database, Executor } from '../platform/db/index.ts';
import { AppError, badRequest } from '../platform/errors.ts';
import { newId, pooledRandomBytes } from '../platform/ids.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { captureSettings, type Merchant } from '../accounts/index.ts';
import { checkPaymentWebhookUrl } from '../webhooks/core.ts';
import type { PriceRefusal, TokenInfo } from './pure.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { noCurrentPrice } from '../market/index.ts';
import { parseCreateInput, type CreateInput, type SimulationOutcome } from './create-input.ts';
import type { CreatedPaymentWriter } from './create-statement.ts';
import { eventDataOfView, paymentJson } from './views.ts';
import { createdAuditInput } from './create-audit.ts';
import { CHOOSE_DEADLINE_MS, coinFields, notEnabled, optionsOrRefusal, type CoinDeps } from './coin.ts';
import { CHOOSE_COIN_FIRST, noOtherAsset, ONLY_TEST, otherCoinOf, type Simulator } from './simulation.ts';
import { findOpenByOrder, insertPayment } from './repository.ts';
import type { NewPaymentRow, PaymentRow } from './schema.ts';
import { emitPaymentEvent, SOCKET_EVENTS } from './payment-events.ts';
import type { Timers } from '../platform/timers.ts';
import { DEADLINE_TIMER } from './deadlines.ts';

export interface CreateCaller {
  merchant: Merchant;
  livemode: boolean;
  storeId: string | null;
  actor: Actor;
}

export interface CreateDeps extends CoinDeps {
  db: Database;
  timers: Timers;
  simulator: Simulator;
  allowPrivateWebhooks: boolean;
  outbox: { kick(): void };
  writer: CreatedPaymentWriter;
  /** `{checkout_base}` of checkout_url; null when no page is served. */
  checkoutBase: string | null;
}

export interface CreateResult {
  payment: PaymentRow;
  created: boolean;
  /** The merchant's JSON of a payment created here without a simulation: built once, for the answer and the event. */
  view?: Record<string, unknown>;
}

/** Why the coins asked for cannot be had: one the merchant has not enabled or, live, one without its node or its token contract there. */
function coinRefusal(input: CreateInput, caller: CreateCaller, deps: CoinDeps, enabled: readonly TokenSymbol[]): AppError | undefined {
  for (const t of [...(input.token ? [input.token] : []), ...(input.tokens ?? [])]) {
    if (!enabled.includes(t)) return badRequest(notEnabled(t));
    const why = deps.catalog.unavailable(t, caller.livemode);
    if (why) return badRequest(why);
  }
  return undefined;
}

/**
 * Run in the creation's transaction before the payment is written (a payment link's creation checks
 * its link is still active there): what it locks is held until the payment is committed, and it
 * throws to refuse the creation. A creation with one is written on its own, not in a group.
 */
export type CreateGuard = (tx: Executor) => Promise<void>;

export async function createPayment(deps: CreateDeps, caller: CreateCaller, body: Record<string, unknown>, now: Date, guard?: CreateGuard): Promise<CreateResult> {
  const input = parseCreateInput(body);
  const settings = captureSettings(caller.merchant);
  const scope = { merchantId: caller.merchant.id, livemode: caller.livemode, storeId: caller.storeId };
  // A refusal that depends on the moment (a coin turned off or without its node since, a price no coin
  // accepts now, no current price, a webhook_url that no longer passes its checks) is answered only
  // when the order is not already open: a safe retry of an open order answers that payment (200).
  const refuse = async (err: AppError): Promise<CreateResult> => {
    const open = await findOpenByOrder(deps.db.orm, scope, input.orderId);
    if (open) return { payment: open, created: false };
    throw err;
  };
  if (input.simulate && caller.livemode) throw badRequest(ONLY_TEST);
  const coinRefused = coinRefusal(input, caller, deps, settings.enabled_tokens);
  if (coinRefused) return refuse(coinRefused);
  if (input.simulate && !input.token && input.simulate !== 'expired') throw badRequest(CHOOSE_COIN_FIRST);
  if (input.simulate === 'wrong_asset' && input.token && !otherCoinOf(input.token)) throw badRequest(noOtherAsset(input.token));
  let webhookUrl: string | null = null;
  if (input.webhookUrl !== undefined && input.webhookUrl !== null) {
    const checked = await checkPaymentWebhookUrl(input.webhookUrl, { allowPrivate: deps.allowPrivateWebhooks });
    if (!checked.ok) return refuse(badRequest(checked.error));
    // The URL the policy checked (trimmed, at most 2048 characters), as PUT /v1/webhook keeps it.
    webhookUrl = checked.url;
  }

  const base: NewPaymentRow = {
    id: newId('pay', now), merchantId: caller.merchant.id, storeId: caller.storeId, livemode: caller.livemode,
    orderId: input.orderId, status: 'pending', usdAmount: input.usdAmount.toFixed(), amountDueUsd: input.usdAmount.toFixed(),
    settings, allowedTokens: input.tokens ?? null,
    description: input.description ?? null, metadata: input.metadata ?? null, customerEmail: input.customerEmail ?? null,
    successUrl: input.successUrl ?? null, cancelUrl: input.cancelUrl ?? null, webhookUrl,
    checkoutToken: pooledRandomBytes(24).toString('base64url'),
    priceAmount: input.priceAmount ?? null, priceCurrency: input.priceCurrency ?? null, priceRate: input.priceRate ?? null,
    expiresAt: new Date(now.getTime() + CHOOSE_DEADLINE_MS), createdAt: now, updatedAt: now,
  };
  let options: TokenInfo[] | undefined;
  if (!input.token) {
    const listed = await optionsOrRefusal(base as PaymentRow, deps.catalog, now);
    options = listed.options;
    if (options.length === 0) return refuse(noOptionError(listed));
  }

  for (let attempt = 0; attempt < 3; attempt++) {
    let row: PaymentRow = completeRow(base);
    if (input.token) {
      try {
        row = completeRow({ ...base, ...(await coinFields(deps, { merchantId: base.merchantId, settings, livemode: base.livemode, usdAmount: input.usdAmount }, input.token, now)) });
      } catch (err) {
        if (err instanceof AppError && (err.status === 400 || err.status === 503)) return refuse(err);
        throw err;
      }
    }
    if (input.simulate) {
      const payment = await insertInTransaction(deps, caller, row, now, options, guard, input.simulate);
      if (payment) return { payment, created: true };
    } else {
      const view = paymentJson(row, [], { checkoutBase: deps.checkoutBase, tokenOptions: options });
      const stored = guard ? await insertInTransaction(deps, caller, row, now, options, guard) : await insertPlain(deps, caller, row, view, now);
      if (stored) return { payment: row, created: true, view };
    }
    const winner = await findOpenByOrder(deps.db.orm, scope, input.orderId);
    if (winner) return { payment: winner, created: false };
    // The open payment closed between our insert and the read: try once more.
  }
  throw new Error('could not create the payment: its order_id kept changing state');
}

/** The row as the database will hold it (column defaults filled in). */
function completeRow(r: NewPaymentRow): PaymentRow {
  return {
    storeId: null, token: '', chain: '', depositAddress: '', addressIndex: null, destinationTag: null, extraUsd: null,
    cryptoAmount: null, rateLocked: null, networkFee: null, networkFeeUsd: null, networkFeeBps: null,
    receivedAmount: 0n, receivedUsd: '0', confirmations: null, confirmationsRequired: null, allowedTokens: null,
    description: null, metadata: null, customerEmail: null, successUrl: null, cancelUrl: null, webhookUrl: null,
    priceAmount: null, priceCurrency: null, priceRate: null, simulation: null, confirmedAt: null, closedAt: null,
    ...r,
  } as PaymentRow;
}

/** The usual path: one statement, shared with the creations written at the same time (create-statement.ts). */
async function insertPlain(deps: CreateDeps, caller: CreateCaller, row: PaymentRow, view: Record<string, unknown>, now: Date): Promise<boolean> {
  if (!(await deps.writer.write({ payment: row, actor: caller.actor, eventData: eventDataOfView(view), now }))) return false;
  deps.timers.committed(row.expiresAt);
  // Written outside db.transaction, so the outbox is told here that events are waiting.
  deps.outbox.kick();
  return true;
}

/**
 * With `simulate` or a guard: the payment (and the start of its simulation) in one transaction, the
 * guard's check first. `options`: the token_options of a payment with no coin, which its
 * payment.created carries as insertPlain's does.
 */
async function insertInTransaction(deps: CreateDeps, caller: CreateCaller, row: PaymentRow, now: Date, options: TokenInfo[] | undefined, guard?: CreateGuard, outcome?: SimulationOutcome): Promise<PaymentRow | undefined> {
  return deps.db.transaction(async (tx) => {
    if (guard) await guard(tx);
    const inserted = await insertPayment(tx, row);
    if (!inserted) return undefined;
    await recordAudit(tx, createdAuditInput(inserted, caller.actor, now));
    await emitPaymentEvent(tx, SOCKET_EVENTS.created, inserted, [], now, options);
    await deps.timers.schedule(tx, { kind: DEADLINE_TIMER, key: inserted.id, runAt: inserted.expiresAt });
    return outcome ? deps.simulator.start(tx, inserted, outcome, now) : inserted;
  });
}

/** No coin of the payment is enabled, supported and priced (the payment's tokens list left none). */
export const NO_COIN_AVAILABLE = 'no coin is available for this payment';

/**
 * Why a payment with no coin has no option (400): the refusal naming the lowest price one of its
 * coins takes, its exchange minimum included (noOptionRefusal); or, when none of its coins has a
 * current price, the first one's 503.
 */
function noOptionError({ refusal, coins }: { refusal?: PriceRefusal; coins: readonly TokenSymbol[] }): AppError {
  if (refusal) return badRequest(refusal.message);
  return coins.length > 0 ? noCurrentPrice(coins[0]) : badRequest(NO_COIN_AVAILABLE);
}
