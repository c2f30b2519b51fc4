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
// The operator's reject of a payout still requested finds no transfer to lock; another operator's
// approval that commits before the reject locks the payout records one, which the reject would then
// lock to call it back after the payout's row (the opposite order again). The reject goes back (its
// savepoint's locks released) and locks the new transfer first.
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { pgServerUrl } from '../harness/databases.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds } from '../harness/settlement.ts';
import { untilLockWaiterOr } from '../harness/lock-waits.ts';
import { ABORTED, GIVEN_UP, portWith, transferRace } from '../harness/transfer-race.ts';
import type { Actor } from '../../src/audit/index.ts';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { balances, ledgerEntries, payoutAddresses, payouts, payoutSendFailedNote, PAYOUT_STATE_CONFLICT } from '../../src/settlement/index.ts';

const skip = !pgServerUrl();
if (skip) console.log('operator payout review against the transfer worker skipped: no PostgreSQL server');

const ADMIN = { authorization: 'Bearer test-admin-token' };
const ROUNDS = 6;

describe.skipIf(skip)('an approved payout rejected by the operator while the transfer worker gives it up [postgres]', () => {
  /** Runs in the operator's transaction as it calls the payout's transfer back, its locks taken. */
  let inOperator: (() => Promise<void>) | null = null;
  /** Runs in the worker's transaction that gives the transfer up, before it reports that to the payout. */
  let inWorker: (() => Promise<void>) | null = null;
  /** Runs in the operator's transaction once it locked the payout's transfers, before the payout's row. */
  let afterTransfersLocked: (() => Promise<void>) | null = null;
  const race = transferRace({
    // the chain room's port as the payout service sees it, `inOperator` run before a call back
    seen: (port) => portWith(port, {
      cancel: async (tx, reference, only) => { await inOperator?.(); return port.cancel(tx, reference, only); },
      lockReference: async (tx, reference) => { await port.lockReference(tx, reference); await afterTransfersLocked?.(); },
    }),
    inWorker: () => inWorker,
  });
  const { clock, logged, chain } = race;
  const outcomes: string[] = [];
  const untilWaitingOr = (done: () => boolean) => untilLockWaiterOr(race.db, done);

  const admin = (url: string, payload?: Record<string, unknown>) => race.t.app.inject({ method: 'POST', url, payload, headers: ADMIN, remoteAddress: randomIp() });

  /** A merchant's payout of 50 of its 100 USDT_ERC20, requested. */
  async function requestedPayout(): Promise<{ id: string; merchantId: string }> {
    const acct = await signupAccount(race.t.app);
    const owner = await addMember(race.t, acct.merchant.id, 'owner');
    const actor: Actor = { kind: 'merchant', id: owner.userId };
    const address = await race.t.services.settlement.addresses.add({ merchantId: acct.merchant.id, userId: owner.userId, actor }, true, { token: 'USDT_ERC20', address: ADDR.EVM, password: owner.password });
    await race.db.orm.update(payoutAddresses).set({ activeAt: clock.now() }).where(eq(payoutAddresses.id, address.id));
    expect((await admin('/admin/ledger/adjustments', { merchant_id: acct.merchant.id, livemode: true, token: 'USDT_ERC20', amount: '100', note: 'funding' })).statusCode).toBe(201);
    const p = await race.t.services.settlement.payouts.request(acct.merchant.id, owner.userId, actor, { address_id: address.id, amount: '50' });
    return { id: p.id, merchantId: acct.merchant.id };
  }

  /** The same, approved: its transfer from the hot wallet recorded, nothing signed. */
  async function approvedPayout(): Promise<{ id: string; merchantId: string }> {
    const p = await requestedPayout();
    expect((await admin(`/admin/payouts/${p.id}/approve`)).json().payout.status).toBe('approved');
    return p;
  }

  it('one rejection stands, neither is aborted, the amount comes back once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const p = await approvedPayout();
      logged.length = 0;
      chain.prepared = [{ kind: 'refused', why: GIVEN_UP, permanent: true }];
      let worker: Promise<void> | null = null;
      let operator: ReturnType<typeof admin> | null = null;
      let done = false;
      const runWorker = () => { worker = race.stepper.pass().finally(() => { done = true; }); };
      const runOperator = () => { operator = admin(`/admin/payouts/${p.id}/reject`, { note: 'not this one' }).finally(() => { done = true; }); };
      // even rounds: the worker's pass runs while the operator calls the transfer back, its locks held
      inOperator = round % 2 === 0 ? async () => { if (!worker) { runWorker(); await untilWaitingOr(() => done); } } : null;
      // odd rounds: the operator rejects while the worker reports the transfer given up, its first lock held
      inWorker = round % 2 === 1 ? async () => { if (!operator) { runOperator(); await untilWaitingOr(() => done); } } : null;
      if (round % 2 === 0) runOperator(); else runWorker();
      const res = await (round % 2 === 0 ? operator! : (await worker!, operator!));
      if (round % 2 === 0) await worker;

      // neither transaction was aborted (a deadlock): the operator answered, the worker logged no retry
      expect(logged.filter((l) => ABORTED.test(l)), `round ${round}`).toEqual([]);
      const [payout] = await race.db.orm.select().from(payouts).where(eq(payouts.id, p.id));
      const [transfer] = await race.db.orm.select().from(outgoingTransfers).where(and(eq(outgoingTransfers.reference, p.id), eq(outgoingTransfers.purpose, 'payout')));
      const released = (await race.db.orm.select().from(ledgerEntries).where(eq(ledgerEntries.reference, p.id))).filter((e) => e.type === 'payout_release');
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
      const [bal] = await race.db.orm.select().from(balances).where(and(eq(balances.merchantId, p.merchantId), eq(balances.token, 'USDT_ERC20'), eq(balances.livemode, true)));
      expect([bal.available, bal.pendingPayout], `round ${round}`).toEqual([100_000_000n, 0n]);
    }
    // each lock taken first wins: the other waits for it and then finds nothing left to do
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, (_, i) => (i % 2 === 0 ? 'operator first: called back' : 'worker first: given up')));
    await expectLedgerHolds(race.db);
  }, 60_000);

  it('a requested payout rejected while another operator approves it locks the new transfer before the payout', async () => {
    const p = await requestedPayout();
    logged.length = 0;
    chain.prepared = [{ kind: 'refused', why: GIVEN_UP, permanent: true }];
    let approval: ReturnType<typeof admin> | null = null;
    let worker: Promise<void> | null = null;
    let done = false;
    // the approval commits after the reject locked the payout's transfers (none yet), before it locks the payout
    afterTransfersLocked = async () => {
      if (approval) return;
      approval = admin(`/admin/payouts/${p.id}/approve`);
      expect((await approval).json().payout.status).toBe('approved');
    };
    // as the reject calls the transfer back, the worker takes it up and gives it up
    inOperator = async () => { if (!worker) { worker = race.stepper.pass().finally(() => { done = true; }); await untilWaitingOr(() => done); } };
    inWorker = null;
    try {
      const res = await admin(`/admin/payouts/${p.id}/reject`, { note: 'not this one' });
      await worker;
      // neither transaction was aborted (a deadlock): the reject locked the new transfer first, the worker waited for it
      expect(logged.filter((l) => ABORTED.test(l))).toEqual([]);
      expect([res.statusCode, res.json().payout?.status]).toEqual([200, 'rejected']);
      const [payout] = await race.db.orm.select().from(payouts).where(eq(payouts.id, p.id));
      const [transfer] = await race.db.orm.select().from(outgoingTransfers).where(and(eq(outgoingTransfers.reference, p.id), eq(outgoingTransfers.purpose, 'payout')));
      expect([payout.status, payout.reviewNote, transfer.status]).toEqual(['rejected', 'not this one', 'canceled']);
      const released = (await race.db.orm.select().from(ledgerEntries).where(eq(ledgerEntries.reference, p.id))).filter((e) => e.type === 'payout_release');
      expect(released.map((e) => e.amount)).toEqual([50_000_000n]);
      const [bal] = await race.db.orm.select().from(balances).where(and(eq(balances.merchantId, p.merchantId), eq(balances.token, 'USDT_ERC20'), eq(balances.livemode, true)));
      expect([bal.available, bal.pendingPayout]).toEqual([100_000_000n, 0n]);
      await expectLedgerHolds(race.db);
    } finally {
      afterTransfersLocked = null;
      inOperator = null;
    }
  }, 60_000);
});
