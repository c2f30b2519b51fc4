// POST /v1/payments: a new payment, or the open one of the same order_id in the same scope (safe
// retry). The partial unique index on open payments decides a race: the loser's insert is refused
// inside a savepoint and it answers the winner's payment.
import crypto from 'node:crypto';
import type { Database, Executor } from '../platform/db/index.ts';
import { AppError, badRequest } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { captureSettings, type Merchant } from '../accounts/index.ts';
import { checkPaymentWebhookUrl } from '../webhooks/core.ts';
import { belowMinimumMessage, minimumPriceUsd } from './pure.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { parseCreateInput, type CreateInput } from './create-input.ts';
import { allowedCoins, CHOOSE_DEADLINE_MS, coinFields, noNode, notEnabled, optionsOf, type CoinDeps } from './coin.ts';
import { CHOOSE_COIN_FIRST, ONLY_TEST, type Simulator } from './simulation.ts';
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
}

export interface CreateResult {
  payment: PaymentRow;
  created: boolean;
}

/** Checks the coins asked for against the merchant's enabled coins and, live, the configured nodes. */
function checkCoins(input: CreateInput, caller: CreateCaller, deps: CoinDeps, enabled: readonly TokenSymbol[]): void {
  for (const t of [...(input.token ? [input.token] : []), ...(input.tokens ?? [])]) {
    if (!enabled.includes(t)) throw badRequest(notEnabled(t));
    if (!deps.catalog.available(t, caller.livemode)) throw badRequest(noNode(t));
  }
}

export async function createPayment(deps: CreateDeps, caller: CreateCaller, body: Record<string, unknown>, now: Date): Promise<CreateResult> {
  const input = parseCreateInput(body);
  const settings = captureSettings(caller.merchant);
  if (input.simulate && caller.livemode) throw badRequest(ONLY_TEST);
  checkCoins(input, caller, deps, settings.enabled_tokens);
  if (input.simulate && !input.token && input.simulate !== 'expired') throw badRequest(CHOOSE_COIN_FIRST);
  let webhookUrl: string | null = null;
  if (input.webhookUrl !== undefined && input.webhookUrl !== null) {
    const checked = await checkPaymentWebhookUrl(input.webhookUrl, { allowPrivate: deps.allowPrivateWebhooks });
    if (!checked.ok) throw badRequest(checked.error);
    webhookUrl = String(input.webhookUrl);
  }
  const scope = { merchantId: caller.merchant.id, livemode: caller.livemode, storeId: caller.storeId };

  const base: NewPaymentRow = {
    id: newId('pay', now), merchantId: caller.merchant.id, storeId: caller.storeId, livemode: caller.livemode,
    orderId: input.orderId, status: 'pending', usdAmount: input.usdAmount.toFixed(), amountDueUsd: input.usdAmount.toFixed(),
    settings, allowedTokens: input.tokens ?? null,
    description: input.description ?? null, metadata: input.metadata ?? null, customerEmail: input.customerEmail ?? null,
    successUrl: input.successUrl ?? null, cancelUrl: input.cancelUrl ?? null, webhookUrl,
    checkoutToken: crypto.randomBytes(24).toString('base64url'),
    priceAmount: input.priceAmount ?? null, priceCurrency: input.priceCurrency ?? null, priceRate: input.priceRate ?? null,
    expiresAt: new Date(now.getTime() + CHOOSE_DEADLINE_MS), createdAt: now, updatedAt: now,
  };
  // A price no coin accepts is refused, unless the order is already open (a safe retry answers it unchanged).
  const refuse = async (message: string): Promise<CreateResult> => {
    const open = await findOpenByOrder(deps.db.orm, scope, input.orderId);
    if (open) return { payment: open, created: false };
    throw badRequest(message);
  };
  if (!input.token) {
    const options = await optionsOf(base as PaymentRow, deps.catalog, now);
    if (options.length === 0) return refuse(lowestMinimumMessage(base as PaymentRow, deps));
  }

  for (let attempt = 0; attempt < 3; attempt++) {
    let refusal: string | undefined;
    const result = await deps.db.transaction(async (tx) => {
      let row: NewPaymentRow = base;
      if (input.token) {
        const priced = await coinFields(tx, deps, { merchantId: base.merchantId, settings, livemode: base.livemode, usdAmount: input.usdAmount }, input.token, now).catch((err: unknown) => {
          if (err instanceof AppError && err.status === 400) { refusal = err.message; return undefined; }
          throw err;
        });
        if (!priced) return null;
        row = { ...base, ...priced };
      }
      const inserted = await insertPayment(tx, row);
      if (!inserted) {
        const winner = await findOpenByOrder(tx, scope, input.orderId);
        return winner ? { payment: winner, created: false } : null;
      }
      return { payment: await afterInsert(tx, deps, caller, inserted, input, now), created: true };
    });
    if (refusal !== undefined) return refuse(refusal);
    if (result) return result;
  }
  throw new Error('could not create the payment: its order_id kept changing state');
}

async function afterInsert(tx: Executor, deps: CreateDeps, caller: CreateCaller, inserted: PaymentRow, input: CreateInput, now: Date): Promise<PaymentRow> {
  let p = inserted;
  await recordAudit(tx, {
    merchantId: p.merchantId, action: 'payment.created', actor: caller.actor, subject: p.id, paymentId: p.id,
    after: { order_id: p.orderId, usd_amount: p.usdAmount, token: p.token, livemode: p.livemode }, at: now,
  });
  await emitPaymentEvent(tx, SOCKET_EVENTS.created, p, [], now);
  await deps.timers.schedule(tx, { kind: DEADLINE_TIMER, key: p.id, runAt: p.expiresAt });
  if (input.simulate) p = await deps.simulator.start(tx, p, input.simulate, now);
  return p;
}

function lowestMinimumMessage(p: PaymentRow, deps: CoinDeps): string {
  const market = deps.catalog.market();
  const coins = allowedCoins(p, deps.catalog);
  const pricing = { feeBps: p.settings.fee_bps, feesPaidByCustomer: p.settings.fees_paid_by_customer, hideBelowMinimum: p.settings.hide_below_minimum };
  let best: { token: TokenSymbol; min: ReturnType<typeof minimumPriceUsd> } | undefined;
  for (const t of coins) {
    const min = minimumPriceUsd(t, market, pricing);
    if (!best || min.lt(best.min)) best = { token: t, min };
  }
  return best ? belowMinimumMessage(best.token, best.min) : 'no coin is available for this payment';
}
