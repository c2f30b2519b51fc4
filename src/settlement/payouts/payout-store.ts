// Merchant payouts in the database: request (holding the amount), and the moves of spec 3
// Merchant payout: requested → canceled | approved | rejected; approved → sent | rejected.
// Every move is a compare-and-set on the status, with its ledger entry, balance and events in
// the caller's transaction.
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../platform/db/index.ts';
import { newId } from '../../platform/ids.ts';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { appendEvent } from '../../events/index.ts';
import { PAYOUT_EVENTS } from '../../events/webhook-types.ts';
import { usdRateOf, type MarketData } from '../../market/index.ts';
import { formatUnits } from '../../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../tokens/index.ts';
import { emitBalances, lockBalance, postEntries, releasePending } from '../balance-store.ts';
import { payouts, type PayoutAddressRow, type PayoutRow } from '../schema.ts';
import { payoutJson } from '../json.ts';
import { raiseNotification } from '../../notifications/index.ts';
import { MIN_PAYOUT_MESSAGE, payoutFigures, payoutNetworkFee, underMinimumPayout } from './payout-math.ts';
import type { OwnAddressCheck } from '../ports.ts';
import { tellRefused } from '../refused-address.ts';

export const PAYOUT_STATUSES = ['requested', 'canceled', 'approved', 'rejected', 'sent'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
/** Statuses whose amount is still held in `pending_payout`. */
export const OPEN_PAYOUT: readonly PayoutStatus[] = ['requested', 'approved'];
export const PAYOUT_STATE_CONFLICT = 'payout is not in a state that allows this';

export const balanceHolds = (token: TokenSymbol, available: bigint): string =>
  `your ${token} balance holds ${formatUnits(available, TOKEN_DEFS[token].decimals)} ${token}`;
export const amountBelowFee = (token: TokenSymbol, fee: bigint): string =>
  `amount must be more than the network fee of ${formatUnits(fee, TOKEN_DEFS[token].decimals)} ${token}`;

export interface PayoutRequest {
  merchantId: string;
  address: PayoutAddressRow;
  fromToken: TokenSymbol;
  /** Base units of fromToken; undefined = the whole available balance. */
  amount: bigint | undefined;
  requestedBy: string;
  market: MarketData;
  now: Date;
  /** Refuses the service's own addresses and token contracts (an address stored before they were refused). */
  ownAddresses: OwnAddressCheck;
}

/** Why no payout may go to the request's address (the service's own, a token contract), or null. */
const refusalOf = (tx: Executor, r: PayoutRequest): Promise<string | null> =>
  r.ownAddresses(tx, r.address.token as TokenSymbol, r.address.address);

/**
 * A payout the service asks for itself (the scheduler, rule 6, the automatic retry): one
 * createPayout refuses (the network fee takes it all) is not made, and the balance waits for more.
 * The refusal comes before anything is written, so the caller's transaction goes on. One to an
 * address no payout may go to is not made either, and the team is told why (tellRefused).
 */
export async function createPayoutOrWait(tx: Executor, r: PayoutRequest): Promise<PayoutRow | null> {
  const refusal = await refusalOf(tx, r);
  if (refusal) {
    await tellRefused(tx, r.address, refusal, r.now);
    return null;
  }
  try {
    return await createPayout(tx, r);
  } catch (err) {
    if (err instanceof AppError) return null;
    throw err;
  }
}

/** Holds the amount (`payout_hold`) and records the payout as requested. Payouts are live only. */
export async function createPayout(tx: Executor, r: PayoutRequest): Promise<PayoutRow> {
  const refusal = await refusalOf(tx, r);
  if (refusal) throw badRequest(refusal);
  const key = { merchantId: r.merchantId, livemode: true };
  const balance = await lockBalance(tx, key, r.fromToken, r.now);
  const amount = r.amount ?? balance.available;
  const rate = usdRateOf(r.market, r.fromToken);
  const payoutToken = r.address.token as TokenSymbol;
  const fee = payoutNetworkFee(r.fromToken, payoutToken, r.market[payoutToken].networkFeeUsd, rate);
  const fig = payoutFigures(r.fromToken, amount, fee, rate);
  if (underMinimumPayout(r.fromToken, amount, rate)) throw badRequest(MIN_PAYOUT_MESSAGE);
  if (amount > balance.available) throw badRequest(balanceHolds(r.fromToken, balance.available));
  if (fig.send_amount <= 0n) throw badRequest(amountBelowFee(r.fromToken, fee));
  const row: PayoutRow = {
    id: newId('po', r.now), merchantId: r.merchantId, livemode: true, token: payoutToken, chain: TOKEN_DEFS[payoutToken].chain,
    fromToken: r.fromToken, fromChain: TOKEN_DEFS[r.fromToken].chain, amount, networkFee: fee, sendAmount: fig.send_amount,
    amountUsd: fig.amount_usd, networkFeeUsd: fig.network_fee_usd, sendAmountUsd: fig.send_amount_usd, usdRate: fig.usd_rate,
    addressId: r.address.id, address: r.address.address, tag: r.address.tag, status: 'requested', requestedBy: r.requestedBy,
    txId: null, reviewNote: null, createdAt: r.now, updatedAt: r.now, approvedAt: null, rejectedAt: null, sentAt: null, canceledAt: null,
  };
  await tx.insert(payouts).values(row);
  await postEntries(tx, key, [{
    type: 'payout_hold', token: r.fromToken, chain: TOKEN_DEFS[r.fromToken].chain, amount: -amount, usd_amount: fig.amount_usd.neg(), reference: row.id,
  }], r.now);
  await payoutEvents(tx, row, null, r.now);
  return row;
}

export type PayoutMove =
  | { to: 'canceled'; by: string }
  | { to: 'approved' }
  | { to: 'rejected'; note: string }
  | { to: 'sent'; txId: string };

const FROM: Record<PayoutMove['to'], readonly PayoutStatus[]> = {
  canceled: ['requested'], approved: ['requested'], rejected: ['requested', 'approved'], sent: ['approved'],
};

/** Moves a payout of `merchantId` (any merchant when null: the operator) or answers 409. */
export async function movePayout(tx: Executor, id: string, merchantId: string | null, move: PayoutMove, now: Date): Promise<PayoutRow> {
  const set: Partial<PayoutRow> = { status: move.to, updatedAt: now };
  if (move.to === 'canceled') set.canceledAt = now;
  if (move.to === 'approved') set.approvedAt = now;
  if (move.to === 'rejected') { set.rejectedAt = now; set.reviewNote = move.note; }
  if (move.to === 'sent') { set.sentAt = now; set.txId = move.txId; }
  const where = and(eq(payouts.id, id), inArray(payouts.status, [...FROM[move.to]]), ...(merchantId ? [eq(payouts.merchantId, merchantId)] : []));
  const [row] = await tx.update(payouts).set(set).where(where).returning();
  if (!row) {
    const [found] = await tx.select({ id: payouts.id }).from(payouts)
      .where(and(eq(payouts.id, id), ...(merchantId ? [eq(payouts.merchantId, merchantId)] : [])));
    throw found ? conflict(PAYOUT_STATE_CONFLICT) : notFound();
  }
  const key = { merchantId: row.merchantId, livemode: row.livemode };
  const fromToken = row.fromToken as TokenSymbol;
  if (move.to === 'canceled' || move.to === 'rejected') {
    await postEntries(tx, key, [{
      type: 'payout_release', token: fromToken, chain: TOKEN_DEFS[fromToken].chain, amount: row.amount, usd_amount: row.amountUsd,
      reference: row.id, ...(move.to === 'rejected' ? { note: move.note } : {}),
    }], now);
  }
  if (move.to === 'sent') await releasePending(tx, key, fromToken, row.amount, now);
  await payoutEvents(tx, row, move.to === 'canceled' ? null : PAYOUT_EVENTS[move.to], now);
  return row;
}

/**
 * `payout:update` to the dashboard on every change; `payout.*` webhooks (always live) when given;
 * a notification to the team when a payout is requested, approved, rejected or sent.
 */
async function payoutEvents(tx: Executor, row: PayoutRow, webhook: string | null, now: Date): Promise<void> {
  const data = payoutJson(row);
  if (webhook) await appendEvent(tx, { type: webhook, livemode: true, merchantId: row.merchantId, data, at: now });
  await appendEvent(tx, { type: 'payout:update', livemode: true, merchantId: row.merchantId, data, at: now });
  await emitBalances(tx, { merchantId: row.merchantId, livemode: true }, now);
  const notice = payoutNotice(row);
  if (notice) await raiseNotification(tx, { merchantId: row.merchantId, category: 'payouts', livemode: true, ...notice, subject: row.id, at: now });
}

function payoutNotice(row: PayoutRow): { title: string; body: string } | null {
  const what = `payout of ${formatUnits(row.amount, TOKEN_DEFS[row.fromToken as TokenSymbol].decimals)} ${row.fromToken} to ${row.address}`;
  switch (row.status) {
    case 'requested': return { title: 'Payout requested', body: `A ${what} was requested.` };
    case 'approved': return { title: 'Payout approved', body: `The ${what} was approved.` };
    case 'rejected': return { title: 'Payout rejected', body: `The ${what} was rejected: ${row.reviewNote}. The amount is back in your balance.` };
    case 'sent': return { title: 'Payout sent', body: `The ${what} was sent (transaction ${row.txId}).` };
    default: return null;
  }
}
