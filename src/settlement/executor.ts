// The settlement executor: settles a closed payment's final deposits once per coin (spec 1
// "A payment paid in parts…", Settlement modes, Direct settlement rules), in one transaction
// with its ledger entries, balances, payouts and events. Idempotent per deposit: a deposit
// already settled is never settled again, whoever calls and however often.
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { Database, type Executor, type Tx } from '../platform/db/index.ts';
import type { MarketSource } from '../market/index.ts';
import { notFound } from '../platform/errors.ts';
import { NOTE_WAITING_PRICE, planPaymentSettlements, planSettlement } from './planner.ts';
import type { OwnAddressCheck, ServiceFeePort, SettleInput, TransferPort } from './ports.ts';
import { settlementDeposits, settlements, type SettlementRow } from './schema.ts';
import { canPayOut, finalServiceFee, settlementEvents, writePlan } from './settlement-writer.ts';
import { loadInput, type StoredInput } from './stored-input.ts';
import { planInputs } from './plan-inputs.ts';
import { scheduledPayout } from './payouts/scheduled.ts';
import { merchants } from '../accounts/schema.ts';
import { SETTLEMENT_NOT_FOUND } from './statement.ts';
import { recordRealNetworkFee } from './real-network-fee.ts';
import { raiseNotification } from '../notifications/index.ts';
import { formatUnits } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';

export interface ExecutorDeps {
  market: MarketSource;
  transfers: TransferPort | null;
  /** Told of each live service fee as it becomes final (the referral program). */
  fees?: ServiceFeePort | null;
  /** Refuses the service's own addresses and token contracts as payout targets (ports.ts). */
  ownAddresses: OwnAddressCheck;
}

const inTx = <T>(ex: Database | Tx, fn: (tx: Executor) => Promise<T>): Promise<T> =>
  ex instanceof Database ? ex.transaction(fn) : fn(ex);

/** Settles what is not settled yet of a payment's final deposits; returns the settlements made. */
export function settlePayment(ex: Database | Tx, input: SettleInput, deps: ExecutorDeps, now: Date): Promise<SettlementRow[]> {
  return inTx(ex, async (tx) => {
    const { payment } = input;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`settle:${payment.id}`}))`);
    const done = new Set((await tx.select({ txId: settlementDeposits.txId }).from(settlementDeposits)
      .where(eq(settlementDeposits.paymentId, payment.id))).map((r) => r.txId));
    const fresh = [...new Map(input.deposits.filter((d) => !done.has(d.tx_id) && d.amount > 0n).map((d) => [d.tx_id, d])).values()];
    if (fresh.length === 0) return [];
    const { data, input: planned } = await planInputs(tx, payment, fresh, deps, now);
    const plans = planPaymentSettlements({ ...planned, ...(payment.livemode ? { can_pay_out: canPayOut(deps.transfers) } : {}) });
    const rows: SettlementRow[] = [];
    for (const plan of plans) {
      const deposits = fresh.filter((d) => d.token === plan.token);
      rows.push(await writePlan(tx, plan, { payment, deposits, market: data, transfers: deps.transfers, fees: deps.fees ?? null, ownAddresses: deps.ownAddresses, now }));
    }
    // only a credit is paid out at once: a settlement that credits nothing (held, or waiting for a
    // price) would otherwise request again an amount the merchant canceled or the operator rejected
    if (payment.livemode && payment.settlement === 'scheduled' && plans.some((p) => p.balance_credit.length > 0)) await instantPayout(tx, payment.merchant_id, deps, now);
    return rows;
  });
}

/**
 * Scheduled merchants on `instant`: a payout per credited payment (under $10 it waits). Called only
 * when a plan credited the balance (the hourly run likewise waits for a credit: scheduled.ts). A
 * suspended merchant's balance is not requested out: the credit stays newer than their last
 * scheduled payout, so the first hourly run after they are reinstated pays it, as it skips them till then.
 * The payment keeps the mode it was made in (its credit goes to the balance), but paying the balance
 * out follows the merchant's settings now, as the hourly run does: one turned custodial since keeps it.
 */
async function instantPayout(tx: Executor, merchantId: string, deps: ExecutorDeps, now: Date): Promise<void> {
  const [m] = await tx.select({ settlement: merchants.settlement, schedule: merchants.payoutSchedule, status: merchants.status }).from(merchants).where(eq(merchants.id, merchantId));
  if (m?.settlement === 'scheduled' && m.schedule === 'instant' && m.status === 'active') await scheduledPayout(tx, merchantId, deps.market.snapshot(true), deps.ownAddresses, now);
}

/** Plans again every settlement waiting for an address whose time has come (rule 3); returns how many. */
export async function replanDue(db: Database, deps: ExecutorDeps, now: Date): Promise<number> {
  const due = await db.orm.select({ id: settlements.id }).from(settlements)
    .where(and(isNotNull(settlements.replanAt), lte(settlements.replanAt, now), eq(settlements.status, 'pending')))
    .orderBy(asc(settlements.replanAt)).limit(500);
  let n = 0;
  for (const { id } of due) if (await db.transaction((tx) => replanOne(tx, id, deps, now))) n++;
  return n;
}

async function replanOne(tx: Executor, id: string, deps: ExecutorDeps, now: Date): Promise<boolean> {
  const [row] = await tx.select().from(settlements).where(eq(settlements.id, id)).for('update');
  if (!row || row.status !== 'pending' || !row.replanAt || row.replanAt > now) return false;
  const { payment, deposits } = loadInput(row.input as StoredInput);
  const { data, input } = await planInputs(tx, payment, deposits, deps, now);
  const plan = planSettlement({ ...input, ...(payment.livemode ? { can_pay_out: canPayOut(deps.transfers) } : {}) });
  if (plan.note === NOTE_WAITING_PRICE && row.note === NOTE_WAITING_PRICE) {
    // Still no price: only the next try moves (no event for a settlement that did not change).
    await tx.update(settlements).set({ replanAt: plan.replan_at ?? null }).where(eq(settlements.id, id));
    return true;
  }
  await writePlan(tx, plan, { payment, deposits, market: data, transfers: deps.transfers, fees: deps.fees ?? null, ownAddresses: deps.ownAddresses, now }, row);
  // A credit planned again (one that waited for a market price) is a credited payment too: an
  // `instant` merchant is paid out now, as settlePayment does, not at the next hourly run.
  if (payment.livemode && payment.settlement === 'scheduled' && plan.balance_credit.length > 0) await instantPayout(tx, payment.merchant_id, deps, now);
  return true;
}

/**
 * The chain room reports a direct settlement's transfer on chain; with `networkFee`, what its
 * transaction really cost (a chain where the settlement is one transaction paying the whole network
 * fee), recorded in place of the quoted figure (real-network-fee.ts).
 */
export async function completeSettlement(
  tx: Executor, id: string, txId: string, now: Date, opts: { networkFee?: bigint | null; fees?: ServiceFeePort | null } = {},
): Promise<SettlementRow> {
  if (opts.networkFee !== undefined && opts.networkFee !== null) {
    const [row] = await tx.select().from(settlements).where(eq(settlements.id, id)).for('update');
    if (row?.status === 'pending' && row.mode === 'direct') await recordRealNetworkFee(tx, row, opts.networkFee, now);
  }
  // a treasury conversion is done once its payout is final (conversions.ts)
  const conversion = sql`case when ${settlements.conversion}->>'status' = 'pending' then jsonb_set(${settlements.conversion}, '{status}', '"done"') else ${settlements.conversion} end`;
  const row = await finish(tx, id, { status: 'completed', txId, completedAt: now, note: null, conversion }, now);
  // Bitcoin family: the fee is final now, the real one recorded or (none reported, or one the share
  // could not have paid) the quote standing. Tron's is once its other transfers close (burnt-fee.ts).
  if (row.chain !== 'tron') await finalServiceFee(tx, row, opts.fees ?? null, now);
  return row;
}

/** The chain room gives up on a direct settlement after repeated tries. */
export async function failSettlement(tx: Executor, id: string, note: string, now: Date): Promise<SettlementRow> {
  return finish(tx, id, { status: 'failed', note }, now);
}

async function finish(tx: Executor, id: string, set: Partial<SettlementRow> | Record<string, unknown>, now: Date): Promise<SettlementRow> {
  const [row] = await tx.update(settlements).set({ ...set, replanAt: null, updatedAt: now })
    .where(and(eq(settlements.id, id), inArray(settlements.status, ['pending']))).returning();
  if (!row) throw notFound(SETTLEMENT_NOT_FOUND);
  await settlementEvents(tx, row, now);
  if (row.status === 'failed') {
    const amount = `${formatUnits(row.amount, TOKEN_DEFS[row.token as TokenSymbol].decimals)} ${row.token}`;
    await raiseNotification(tx, {
      merchantId: row.merchantId, category: 'payments', livemode: row.livemode, title: 'Settlement failed', subject: row.id, at: now,
      body: `The settlement of ${amount} of payment ${row.paymentId} could not be sent${row.note ? `: ${row.note}` : ''}.`,
    });
  }
  return row;
}
