// Live conversions carried out by the service's own treasury (direct rules 4 and 5; README "Live
// conversions"). A settlement the planner converts (`via` swap or exchange) moves in steps, each
// one a transaction on the locked settlement row, recorded before anything is broadcast:
//   1. the deposit (all of it) is swept into the service's hot wallet of its chain (settlement-writer
//      records that sweep with the settlement; here when its chain could not send then);
//   2. once that sweep is final, the conversion is priced at the market now (`amount_out` becomes
//      what `amount_in` fetches then) and guarded against the planned quote as rule 5 says
//      (execution-guard.ts). Carried out: its ledger entries are written and `amount_out` of
//      the target coin is sent from the service's hot wallet of that coin's chain to the payout
//      address, arriving exactly (XRP: with the address's tag). Refused: rule 6, the deposit is kept
//      in the balance, bought for USDT on Tron at market, with the guard's note. A destination the
//      gateway refuses by now is paid nothing: what was bought stays in the balance (refused-destination.ts);
//   3. the payout transfer final: the settlement is `completed` with its `tx_id`, the conversion
//      `done` (executor.ts completeSettlement, told by the chain room). While the hot wallet cannot
//      pay, the settlement says so in its note, and a destination refused meanwhile has the payout
//      canceled, if nothing was signed for it yet, and what was bought kept in the balance.
// Every step reads the state it moves from, so a crash between steps repeats nothing.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import type { Logger } from '../platform/logger.ts';
import type { Chain } from '../config.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import { marketQuotes, planSettlement, type ConversionPlan, type SettlementPlan } from './planner.ts';
import { executedLedger } from './conversion-ledger.ts';
import { NoMarketRateError } from './conversion-paths.ts';
import { checkExecution } from './execution-guard.ts';
import { NOTE_CANNOT_PAY_OUT } from './routing.ts';
import { settlements, type SettlementRow } from './schema.ts';
import { SWEEP_NONE, type StoredConversion } from './json.ts';
import { loadInput, type StoredInput } from './stored-input.ts';
import { planInputs } from './plan-inputs.ts';
import { emitBalances } from './balance-store.ts';
import { NOTE_CONVERTING, postLedger, settlementEvents, transfersFor, writePlan } from './settlement-writer.ts';
import { failSettlement, type ExecutorDeps } from './executor.ts';
import { treasuryPayout } from './failed-settlements.ts';
import { keepRefusedSettlement, refusedDestination } from './refused-destination.ts';

/** The payout waits for the service's hot wallet of the target coin's chain to be funded. */
export const noteWaitingFunds = (chain: Chain): string => `waiting for the service's ${chain} hot wallet to be funded`;
/** The deposit never reached the service's wallet: the settlement fails (the operator retries or returns it). */
export const noteSweepFailed = (why: string): string => `the deposit could not be moved to the service's wallet: ${why}`;
/** No current price to guard the conversion with: it waits for one. */
export const NOTE_CONVERSION_WAITING_PRICE = 'converting: waiting for a current market price';

const chainOf = (t: TokenSymbol): Chain => TOKEN_DEFS[t].chain;
type Port = NonNullable<ExecutorDeps['transfers']>;

/**
 * Moves every live treasury conversion one step where it can; returns how many moved. A step that
 * throws (the chain layer cannot send, a node is down) is rolled back, logged and passed over: the
 * pass goes on with the next conversion, and the next pass tries that one again.
 */
export async function advanceConversions(db: Database, deps: ExecutorDeps, now: Date, log?: Logger): Promise<number> {
  if (!deps.transfers) return 0;
  // every open conversion, a page at a time: the oldest may be waiting on a chain that cannot send or
  // a hot wallet not funded, and a single capped page of those would hold back every newer one for good
  // (and so would one whose step throws, were the pass to end there)
  let n = 0;
  let after: string | null = null;
  for (;;) {
    // keyset on the last row's own (created_at, id), read by the database: a JS Date would drop
    // the timestamp's microseconds
    const open: { id: string }[] = await db.orm.select({ id: settlements.id }).from(settlements).where(and(
      eq(settlements.status, 'pending'), eq(settlements.livemode, true),
      sql`${settlements.conversion}->>'status' = 'pending' and ${settlements.conversion}->>'treasury' = 'true'`,
      after ? sql`(${settlements.createdAt}, ${settlements.id}) > (select s.created_at, s.id from settlements s where s.id = ${after})` : undefined,
    )).orderBy(asc(settlements.createdAt), asc(settlements.id)).limit(CONVERSION_PAGE);
    for (const { id } of open) {
      try {
        if (await db.transaction((tx) => advanceOne(tx, id, deps, now))) n++;
      } catch (err) {
        log?.warn({ settlement_id: id, err }, 'conversions: a step failed; tried again on the next pass');
      }
    }
    if (open.length < CONVERSION_PAGE) return n;
    after = open[open.length - 1].id;
  }
}

const CONVERSION_PAGE = 500;

async function advanceOne(tx: Executor, id: string, deps: ExecutorDeps, now: Date): Promise<boolean> {
  const port = deps.transfers;
  // Lock order: the payout transfer's row, then the settlement's. The transfer worker ends a transfer
  // and then completes or fails its settlement in one transaction (chains/transfers/outcomes.ts), and
  // step 3 may cancel the payout (which locks its row): taken the other way round, the two would
  // deadlock and PostgreSQL would abort one. The payout is read unlocked first to know which row to
  // lock; one recorded since (another process's step 2) is left to the next pass.
  const [seen] = await tx.select({ conversion: settlements.conversion }).from(settlements).where(eq(settlements.id, id));
  const locked = (seen?.conversion as StoredConversion | null | undefined)?.payout;
  if (locked) await port?.lock?.(tx, locked);
  const [row] = await tx.select().from(settlements).where(eq(settlements.id, id)).for('update');
  const c = row?.conversion as StoredConversion | null;
  if (!row || !port || row.status !== 'pending' || c?.status !== 'pending' || !c.treasury) return false;
  if (c.payout !== locked) return false;
  const from = row.chain as Chain;
  const to = chainOf(c.to);
  // 1. the sweep, once the deposit's chain can send
  if (!c.sweep) {
    if (!transfersFor(port, from)) return false;
    if (!transfersFor(port, to)) return refuse(tx, row, NOTE_CANNOT_PAY_OUT, deps, now);
    const deposit = (row.input as StoredInput).payment.deposit_address;
    const sweep = row.token === 'XRP' || !deposit
      ? SWEEP_NONE
      : await port.send(tx, { chain: from, token: row.token as TokenSymbol, from: deposit, amount: row.amount, purpose: 'sweep', reference: row.id });
    return update(tx, row, { ...c, sweep }, NOTE_CONVERTING, sweep === SWEEP_NONE ? [] : [sweep], now);
  }
  // 2. the deposit is the service's: priced, guarded, paid out
  if (!c.payout) {
    if (c.sweep !== SWEEP_NONE) {
      const swept = await port.state?.(tx, c.sweep);
      if (!swept || swept.status === 'pending') return false;
      if (swept.status === 'failed') {
        await failSettlement(tx, row.id, noteSweepFailed(swept.why ?? 'given up'), now);
        return true;
      }
    }
    if (!transfersFor(port, to)) return refuse(tx, row, NOTE_CANNOT_PAY_OUT, deps, now, true);
    let check: ReturnType<typeof checkExecution>;
    try {
      check = checkExecution(c.from, c.to, BigInt(c.amount_in), BigInt(c.amount_out), marketQuotes(deps.market.snapshot(true)));
    } catch (err) {
      if (!(err instanceof NoMarketRateError)) throw err;
      return row.note === NOTE_CONVERSION_WAITING_PRICE ? false : update(tx, row, c, NOTE_CONVERSION_WAITING_PRICE, [], now);
    }
    if (!check.ok) return refuse(tx, row, check.reason, deps, now, true);
    // priced at the market now: amount_out is what amount_in fetches at this moment (the guard held it
    // to the planned quote), and from here on it is fixed: the ledger and the payout carry it
    const executed: StoredConversion = { ...c, amount_out: check.market_out.toString() };
    await postLedger(tx, row, executedLedger(row, executed), deps.fees ?? null, now);
    await emitBalances(tx, { merchantId: row.merchantId, livemode: row.livemode }, now);
    // a destination the gateway refuses by now (planned before it did, or its own address since) is
    // paid nothing: what the conversion bought stays in the balance, as a direct settlement's net does
    const refusal = await refusedDestination(tx, deps.ownAddresses, row);
    if (refusal) return keepBought(tx, row, executed, refusal, port, deps, now);
    const payout = await port.send(tx, treasuryPayout(row, executed));
    return update(tx, row, { ...executed, payout }, null, [payout], now);
  }
  // 3. waiting for the payout to be final: say so while the hot wallet cannot pay it
  const paying = await port.state?.(tx, c.payout);
  if (paying?.waiting_funds) {
    // a destination refused since the payout was recorded is paid nothing while the payout can still
    // be called back (nothing signed for it: cancel refuses one that may be on a node): what the
    // conversion bought stays in the balance, as step 2 keeps it
    const refusal = await refusedDestination(tx, deps.ownAddresses, row);
    if (refusal && await port.cancel?.(tx, row.id, c.payout)) return keepBought(tx, row, c, refusal, port, deps, now);
  }
  const note = paying?.waiting_funds ? noteWaitingFunds(to) : null;
  return note === row.note ? false : update(tx, row, c, note, [], now);
}

/** What the conversion bought stays in the balance (its destination is refused): the conversion is done. */
async function keepBought(tx: Executor, row: SettlementRow, c: StoredConversion, refusal: string, port: Port, deps: ExecutorDeps, now: Date): Promise<boolean> {
  await keepRefusedSettlement(tx, { ...row, conversion: { ...c, status: 'done' } }, refusal, port, deps.fees ?? null, now);
  return true;
}

async function update(tx: Executor, row: SettlementRow, c: StoredConversion, note: string | null, added: string[], now: Date): Promise<boolean> {
  const intents = [...(row.transferIntents ?? []), ...added];
  const [updated] = await tx.update(settlements).set({ conversion: c, note, transferIntents: intents.length > 0 ? intents : null, updatedAt: now })
    .where(eq(settlements.id, row.id)).returning();
  await settlementEvents(tx, updated, now);
  return true;
}

/**
 * Rule 6: the conversion is not carried out. Planned again at the market now with the refusal as
 * its note: kept in the balance (bought for USDT on Tron), the conversion shown `skipped`. A deposit
 * already swept stays where it is (the service's wallet); one not swept yet is swept now.
 */
async function refuse(tx: Executor, row: SettlementRow, reason: string, deps: ExecutorDeps, now: Date, swept = false): Promise<boolean> {
  const c = row.conversion as StoredConversion;
  const { payment, deposits } = loadInput(row.input as StoredInput);
  // a treasury conversion is live (advanceConversions reads live settlements only)
  const { data, input } = await planInputs(tx, payment, deposits, deps, now);
  const plan = planSettlement({ ...input, refuse_conversion: reason });
  // no current price to buy it with: it waits (the next pass tries again)
  if (plan.status === 'pending') return false;
  const skipped: ConversionPlan = {
    via: c.via as ConversionPlan['via'], from: c.from, amount_in: BigInt(c.amount_in), to: c.to, amount_out: BigInt(c.amount_out), status: 'skipped', note: reason,
  };
  const final: SettlementPlan = plan.status === 'held' ? plan : { ...plan, conversion: skipped, ...(plan.conversion ? { balance_purchase: plan.conversion } : {}) };
  await writePlan(tx, final, {
    payment, deposits, market: data, transfers: deps.transfers, fees: deps.fees ?? null, ownAddresses: deps.ownAddresses, now,
    ...(swept ? { swept: row.transferIntents ?? [] } : {}),
  }, row);
  return true;
}
