// Two transfers of one Tron settlement (the merchant's and the service's share) ending at the same
// moment in two transactions, as two processes do: the burnt fee is still recorded once (outcomes.ts
// locks the settlement's row before reading whether its transfers are all closed, so the second
// transaction waits for the first and then reads its transfer closed). PostgreSQL only: PGlite has
// one connection, so two transactions cannot be open at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, uid, type Account } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { newId } from '../../src/platform/ids.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { queryRows, type Database, type Executor } from '../../src/platform/db/index.ts';
import { dec } from '../../src/money/index.ts';
import { recordTransfer, type TransferRow } from '../../src/chains/transfers/index.ts';
import { moveTransfer } from '../../src/chains/transfers/store.ts';
import { settlementOutcomes } from '../../src/chains/transfers/outcomes.ts';
import { settlements } from '../../src/settlement/index.ts';

const skip = !pgServerUrl();
if (skip) console.log('Tron burnt fee race skipped: no PostgreSQL server');

const AMOUNT = 10_000_000n;
const SERVICE_FEE = 100_000n;
const QUOTED_FEE = 1_500_000n;
const MINED = { settlement: 268_000n, service_fee: 1_100_000n } as const;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe.skipIf(skip)('a Tron settlement\'s transfers ending at once in two transactions [postgres]', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  let t: TestApp;
  let acct: Account;
  const outcomes = settlementOutcomes(createLogger('silent'));

  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    db = opened.db;
    t = await startTestApp(db);
    acct = await signupAccount(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });

  /** A pending direct Tron settlement of `token` (its dollar figures only have to be there). */
  async function pendingSettlement(token: 'TRX' | 'USDT_TRC20', amount: bigint, serviceFee: bigint, quoted: bigint, usd: Record<'value' | 'rate' | 'serviceFee' | 'networkFee' | 'net', string>): Promise<string> {
    const now = new Date();
    const id = newId('stl', now);
    await db.orm.insert(settlements).values({
      id, merchantId: acct.merchant.id, paymentId: newId('pay', now), livemode: false, mode: 'direct', token, chain: 'tron',
      depositTx: `tx_${uid()}`, amount, serviceFee, networkFee: quoted, conversionFee: 0n,
      net: amount - serviceFee - quoted, usdValue: dec(usd.value), usdRate: dec(usd.rate), serviceFeeUsd: dec(usd.serviceFee),
      networkFeeUsd: dec(usd.networkFee), conversionFeeUsd: dec('0'), netUsd: dec(usd.net), destination: ADDR.TRON_2,
      status: 'pending', input: {}, createdAt: now, updatedAt: now,
    });
    return id;
  }

  /** A Tron test-mode transfer recorded, then mined with `minedFee` burnt. */
  async function minedTransfer(t: Omit<Parameters<typeof recordTransfer>[1], 'chain' | 'livemode'>, minedFee: bigint, block = 10n): Promise<TransferRow> {
    const now = new Date();
    const recorded = await recordTransfer(db.orm, { chain: 'tron', livemode: false, ...t }, now);
    return (await moveTransfer(db.orm, recorded, 'recorded', { status: 'mined', txId: `tx_${uid()}`, block, minedFee }, now))!;
  }

  /** A pending direct TRX settlement whose two transfers are mined, waiting to be final. */
  async function minedSettlement(): Promise<{ id: string; transfers: Record<keyof typeof MINED, TransferRow> }> {
    const id = await pendingSettlement('TRX', AMOUNT, SERVICE_FEE, QUOTED_FEE, { value: '1', rate: '0.1', serviceFee: '0.01', networkFee: '0.15', net: '0.84' });
    const transfers = {} as Record<keyof typeof MINED, TransferRow>;
    for (const purpose of ['settlement', 'service_fee'] as const) {
      transfers[purpose] = await minedTransfer({
        purpose, token: 'TRX', fromAddress: ADDR.TRON, fromIndex: 0, fromRole: 'deposit',
        toAddress: purpose === 'settlement' ? ADDR.TRON_2 : ADDR.TRON, amount: purpose === 'settlement' ? AMOUNT - SERVICE_FEE - QUOTED_FEE : SERVICE_FEE, reference: id,
      }, MINED[purpose]);
    }
    return { id, transfers };
  }

  /** Whether a session of this database waits for a row lock. */
  async function someoneWaitsForALock(): Promise<boolean> {
    const rows = await queryRows<{ n: number }>(db.orm, sql`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    return rows[0].n > 0;
  }

  it.each([['settlement', 'service_fee'], ['service_fee', 'settlement']] as const)(
    'the %s transfer ending first, the %s one while it is uncommitted: the burnt fee is recorded', async (first, second) => {
      const { id, transfers } = await minedSettlement();
      /** What the stepper does at the chain's confirmations: final, and its outcome, in one transaction. */
      const final = async (tx: Executor, purpose: keyof typeof MINED) => {
        const now = new Date();
        const row = await moveTransfer(tx, transfers[purpose], 'mined', { status: 'final', finalAt: now }, now);
        await outcomes.final(tx, row!, now);
      };
      const firstDone = deferred();
      const commitFirst = deferred();
      const a = db.transaction(async (tx) => {
        await final(tx, first);
        firstDone.resolve();
        await commitFirst.promise;
      });
      await firstDone.promise;
      let secondDone = false;
      const b = db.transaction(async (tx) => { await final(tx, second); secondDone = true; });
      // the second transaction has ended its transfer and either read the first's still open or waits for it
      while (!secondDone && !await someoneWaitsForALock()) await new Promise((r) => setTimeout(r, 10));
      commitFirst.resolve();
      await a;
      await b;
      const [row] = await db.orm.select().from(settlements).where(eq(settlements.id, id));
      expect(row.status).toBe('completed');
      expect(row.networkFee).toBe(MINED.settlement + MINED.service_fee);
      expect(row.serviceFee).toBe(SERVICE_FEE + QUOTED_FEE - MINED.settlement - MINED.service_fee);
    });
  it('a gas top-up ending after the token transfer it funded closes the settlement: the burn is recorded then', async () => {
    // A USDT settlement: the merchant's transfer burns TRX for its energy, the hot wallet's TRX top-up
    // of the deposit address burns its bandwidth. A stepper catching up reads both final at once and
    // ends them in seq order: the transfer (recorded first) before the top-up recorded for it.
    const rated = settlementOutcomes(createLogger('silent'), () => () => ({ TRX: dec('0.1'), USDT_TRC20: dec('1') }));
    const now = new Date();
    const amount = 10_000_000n;
    const serviceFee = 100_000n;
    const quoted = 1_500_000n;
    const id = await pendingSettlement('USDT_TRC20', amount, serviceFee, quoted, { value: '10', rate: '1', serviceFee: '0.1', networkFee: '1.5', net: '8.4' });
    const transfer = await minedTransfer({
      purpose: 'settlement', token: 'USDT_TRC20', fromAddress: ADDR.TRON, fromIndex: 0, fromRole: 'deposit',
      toAddress: ADDR.TRON_2, amount: amount - serviceFee - quoted, reference: id,
    }, 13_000_000n);
    const topUp = await minedTransfer({
      purpose: 'gas_topup', token: 'TRX', fromAddress: ADDR.TRON_2, fromIndex: 0, fromRole: 'hot',
      toAddress: ADDR.TRON, amount: 20_000_000n, reference: transfer.id,
    }, 268_000n, 9n);
    const end = (row: TransferRow) => db.transaction(async (tx) => {
      const done = await moveTransfer(tx, row, 'mined', { status: 'final', finalAt: now }, now);
      await rated.final(tx, done!, now);
    });
    const read = async () => (await db.orm.select().from(settlements).where(eq(settlements.id, id)))[0];

    await end(transfer);
    let row = await read();
    expect(row.status).toBe('completed');
    // the top-up is still open: the quote stands for now
    expect(row.networkFee).toBe(quoted);
    expect(row.serviceFee).toBe(serviceFee);

    await end(topUp);
    row = await read();
    // 13.268 TRX burnt at $0.10 = 1.3268 USDT; the difference with the quote is the service's
    expect(row.networkFee).toBe(1_326_800n);
    expect(row.serviceFee).toBe(serviceFee + quoted - 1_326_800n);
    expect(row.net).toBe(amount - serviceFee - quoted);
  });
});
