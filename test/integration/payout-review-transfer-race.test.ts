// An approved payout the service sends itself, rejected by the operator while the transfer worker
// gives its transfer up (service-sent.ts, outcomes.ts), both at once. Both take the payout's
// transfer row and the payout's row; they once took them in opposite orders (the operator the
// payout's first, then its transfer's to call it back; the worker the transfer's first, then the
// payout's to reject it), so PostgreSQL found a deadlock and aborted one of the two: the operator
// was answered 500, or the worker tried again on its next pass. Now both take the transfer's first:
// one waits for the other, and exactly one of the two rejections stands. Each round runs the
// worker's pass while the operator's reject holds its locks, and every other round the operator's
// reject while the worker gives the transfer up, its first lock held. PostgreSQL only: PGlite has one
// connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds } from '../harness/settlement.ts';
import { ScriptedChain } from '../harness/scripted-chain.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { queryRows, type Database } from '../../src/platform/db/index.ts';
import type { Actor } from '../../src/audit/index.ts';
import type { WalletKeys } from '../../src/chains/wallets/keys.ts';
import { ChainTransferPort, outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { ChainStepper } from '../../src/chains/transfers/stepper.ts';
import { settlementOutcomes } from '../../src/chains/transfers/outcomes.ts';
import type { TransferOutcomes } from '../../src/chains/transfers/types.ts';
import { balances, ledgerEntries, payoutAddresses, payouts, payoutSendFailedNote, PAYOUT_STATE_CONFLICT, type TransferPort } from '../../src/settlement/index.ts';

const skip = !pgServerUrl();
if (skip) console.log('operator payout review against the transfer worker skipped: no PostgreSQL server');

const ADMIN = { authorization: 'Bearer test-admin-token' };
const HOT = '0x00000000000000000000000000000000000000a1';
const GIVEN_UP = 'the node refuses it for good';
const ROUNDS = 6;

describe.skipIf(skip)('an approved payout rejected by the operator while the transfer worker gives it up [postgres]', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-03-02T10:00:00Z'));
  // what the worker logs at warn and above, one JSON line each
  const logged: string[] = [];
  const log = createLogger('warn', { write: (line: string) => { logged.push(line); } });
  const keys = { hotAddress: () => HOT } as unknown as WalletKeys;
  const port = new ChainTransferPort(keys, () => new Set(['ethereum']), () => clock.now(), () => {});
  /** Runs in the operator's transaction as it calls the payout's transfer back, its locks taken. */
  let inOperator: (() => Promise<void>) | null = null;
  // the chain room's port as the payout service sees it, `inOperator` run before a call back
  const seen: TransferPort = {
    send: (tx, req) => port.send(tx, req),
    supports: (chain) => port.supports(chain),
    retry: (tx, reference) => port.retry(tx, reference),
    state: (tx, id) => port.state(tx, id),
    lock: (tx, id) => port.lock(tx, id),
    lockReference: (tx, reference) => port.lockReference(tx, reference),
    cancel: async (tx, reference, only) => {
      await inOperator?.();
      return port.cancel(tx, reference, only);
    },
  };
  const chain = new ScriptedChain(HOT, 60_000);
  let stepper: ChainStepper;
  /** Runs in the worker's transaction that gives the transfer up, before it reports that to the payout. */
  let inWorker: (() => Promise<void>) | null = null;
  const outcomes: string[] = [];

  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    db = opened.db;
    t = await startTestApp(db, { clock });
    t.services.settlement.useTransfers(seen);
    const reported = settlementOutcomes(log);
    const failed: TransferOutcomes['failed'] = async (tx, tr, note, now) => {
      await inWorker?.();
      await reported.failed(tx, tr, note, now);
    };
    stepper = new ChainStepper(db, chain, { ...reported, failed }, clock, log, { confirmations: 3, retryDelaysMs: [1_000], maxReplacements: 1, concurrency: 1 }, () => {});
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });

  const admin = (url: string, payload?: Record<string, unknown>) => t.app.inject({ method: 'POST', url, payload, headers: ADMIN, remoteAddress: randomIp() });

  /** A merchant's payout of 50 of its 100 USDT_ERC20, approved: its transfer from the hot wallet recorded, nothing signed. */
  async function approvedPayout(): Promise<{ id: string; merchantId: string }> {
    const acct = await signupAccount(t.app);
    const owner = await addMember(t, acct.merchant.id, 'owner');
    const actor: Actor = { kind: 'merchant', id: owner.userId };
    const address = await t.services.settlement.addresses.add({ merchantId: acct.merchant.id, userId: owner.userId, actor }, true, { token: 'USDT_ERC20', address: ADDR.EVM, password: owner.password });
    await db.orm.update(payoutAddresses).set({ activeAt: clock.now() }).where(eq(payoutAddresses.id, address.id));
    expect((await admin('/admin/ledger/adjustments', { merchant_id: acct.merchant.id, livemode: true, token: 'USDT_ERC20', amount: '100', note: 'funding' })).statusCode).toBe(201);
    const p = await t.services.settlement.payouts.request(acct.merchant.id, owner.userId, actor, { address_id: address.id, amount: '50' });
    expect((await admin(`/admin/payouts/${p.id}/approve`)).json().payout.status).toBe('approved');
    return { id: p.id, merchantId: acct.merchant.id };
  }

  /** Until a statement of the database waits for a lock, or `done`. */
  async function untilWaitingOr(done: () => boolean): Promise<void> {
    for (let i = 0; i < 400 && !done(); i++) {
      const [r] = await queryRows<{ n: number }>(db.orm, sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      if (r.n > 0) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it('one rejection stands, neither is aborted, the amount comes back once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const p = await approvedPayout();
      logged.length = 0;
      chain.prepared = [{ kind: 'refused', why: GIVEN_UP, permanent: true }];
      let worker: Promise<void> | null = null;
      let operator: ReturnType<typeof admin> | null = null;
      let done = false;
      const runWorker = () => { worker = stepper.pass().finally(() => { done = true; }); };
      const runOperator = () => { operator = admin(`/admin/payouts/${p.id}/reject`, { note: 'not this one' }).finally(() => { done = true; }); };
      // even rounds: the worker's pass runs while the operator calls the transfer back, its locks held
      inOperator = round % 2 === 0 ? async () => { if (!worker) { runWorker(); await untilWaitingOr(() => done); } } : null;
      // odd rounds: the operator rejects while the worker reports the transfer given up, its first lock held
      inWorker = round % 2 === 1 ? async () => { if (!operator) { runOperator(); await untilWaitingOr(() => done); } } : null;
      if (round % 2 === 0) runOperator(); else runWorker();
      const res = await (round % 2 === 0 ? operator! : (await worker!, operator!));
      if (round % 2 === 0) await worker;

      // neither transaction was aborted (a deadlock): the operator answered, the worker logged no retry
      expect(logged.filter((l) => /tried again on the next pass|deadlock/.test(l)), `round ${round}`).toEqual([]);
      const [payout] = await db.orm.select().from(payouts).where(eq(payouts.id, p.id));
      const [transfer] = await db.orm.select().from(outgoingTransfers).where(and(eq(outgoingTransfers.reference, p.id), eq(outgoingTransfers.purpose, 'payout')));
      const released = (await db.orm.select().from(ledgerEntries).where(eq(ledgerEntries.reference, p.id))).filter((e) => e.type === 'payout_release');
      expect(released.map((e) => e.amount), `round ${round}`).toEqual([50_000_000n]);
      expect(payout.status).toBe('rejected');
      if (res.statusCode === 200) {
        // called back by the operator: the worker then found its transfer canceled, nothing to report
        expect(res.json().payout).toMatchObject({ status: 'rejected', review_note: 'not this one' });
        expect([transfer.status, payout.reviewNote]).toEqual(['canceled', 'not this one']);
        outcomes.push(`${round % 2 === 0 ? 'operator' : 'worker'} first: called back`);
      } else {
        // given up by the worker first: the operator's reject finds the payout rejected already
        expect([res.statusCode, res.json()], `round ${round}`).toEqual([409, { error: PAYOUT_STATE_CONFLICT }]);
        expect([transfer.status, payout.reviewNote]).toEqual(['failed', payoutSendFailedNote(GIVEN_UP)]);
        outcomes.push(`${round % 2 === 0 ? 'operator' : 'worker'} first: given up`);
      }
      const [bal] = await db.orm.select().from(balances).where(and(eq(balances.merchantId, p.merchantId), eq(balances.token, 'USDT_ERC20'), eq(balances.livemode, true)));
      expect([bal.available, bal.pendingPayout], `round ${round}`).toEqual([100_000_000n, 0n]);
    }
    // each lock taken first wins: the other waits for it and then finds nothing left to do
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, (_, i) => (i % 2 === 0 ? 'operator first: called back' : 'worker first: given up')));
    await expectLedgerHolds(db);
  }, 60_000);
});
