// A treasury conversion whose payout the transfer worker gave up (its settlement failed), tried
// again by the operator (failed-settlements.ts) while the conversion step looks at it
// (conversions.ts), listed while it was still pending, both at once. The step locks the payout
// transfer's row and then the settlement's; the retry once locked the settlement's and then, trying
// the failed payout again, the transfer's: PostgreSQL found a deadlock and aborted one of the two (the
// operator was answered 500, or the step was tried again on its next pass). Now the retry takes the
// settlement's transfers first: one waits for the other, and the retry stands once. Each round the
// worker gives the payout up as the step is about to lock it; every other round the operator's retry
// runs while the step holds its first lock, the others the step runs while the retry holds its locks.
// PostgreSQL only: PGlite has one connection.
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { pgServerUrl } from '../harness/databases.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment } from '../harness/settlement.ts';
import { untilLockWaiterOr } from '../harness/lock-waits.ts';
import { ABORTED, GIVEN_UP, portWith, transferRace } from '../harness/transfer-race.ts';
import type { Actor } from '../../src/audit/index.ts';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { advanceConversions } from '../../src/settlement/conversions.ts';
import { settlements } from '../../src/settlement/index.ts';
import type { StoredConversion } from '../../src/settlement/json.ts';

const skip = !pgServerUrl();
if (skip) console.log('operator retry against the conversion step skipped: no PostgreSQL server');

const ADMIN = { authorization: 'Bearer test-admin-token' };
const ETH = 10n ** 18n;
const ROUNDS = 6;

describe.skipIf(skip)('a failed treasury conversion tried again by the operator while the conversion step looks at it [postgres]', () => {
  /** Around the conversion step's lock of the payout transfer `watched`. */
  let beforeStepLock: (() => Promise<void>) | null = null;
  let afterStepLock: (() => Promise<void>) | null = null;
  let watched = '';
  /** Runs in the operator's retry as it tries the failed transfers again, its locks taken. */
  let inOperator: (() => Promise<void>) | null = null;
  const race = transferRace({
    // the chain room's port as the settlement room sees it, with those hooks
    seen: (port) => portWith(port, {
      lock: async (tx, id) => {
        if (id === watched) await beforeStepLock?.();
        await port.lock(tx, id);
        if (id === watched) await afterStepLock?.();
      },
      retry: async (tx, reference) => {
        await inOperator?.();
        return port.retry(tx, reference);
      },
    }),
  });
  const { clock, log, logged, chain } = race;
  const untilWaitingOr = (done: () => boolean) => untilLockWaiterOr(race.db, done);

  /** A live ETH settlement converting into USDT_ERC20: swept, its payout from the hot wallet recorded. */
  async function convertingPayout(): Promise<{ id: string; payout: string }> {
    const acct = await signupAccount(race.t.app);
    const owner = await addMember(race.t, acct.merchant.id, 'owner');
    const actor: Actor = { kind: 'merchant', id: owner.userId };
    await race.t.services.settlement.addresses.add({ merchantId: acct.merchant.id, userId: owner.userId, actor }, true, { token: 'USDT_ERC20', address: ADDR.EVM, password: owner.password });
    const p = payment(acct.merchant.id, { livemode: true, token: 'ETH', rate_locked: '3000', deposit_address: '0x00000000000000000000000000000000000000d1' });
    const [s] = await race.t.services.settlement.settle(race.db, input(p, [{ amount: ETH, usd: '3000' }]));
    await race.db.orm.update(outgoingTransfers).set({ status: 'final', txId: '0xsweep' }).where(and(eq(outgoingTransfers.reference, s.id), eq(outgoingTransfers.purpose, 'sweep')));
    watched = '';
    await advanceConversions(race.db, race.t.services.settlement.deps, clock.now(), log);
    const c = (await row(s.id)).conversion as StoredConversion;
    expect(c.payout).toBeDefined();
    return { id: s.id, payout: c.payout! };
  }

  const row = async (id: string) => (await race.db.orm.select().from(settlements).where(eq(settlements.id, id)))[0];
  const transfer = async (id: string) => (await race.db.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0];

  it('the retry stands once, neither is aborted', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = await convertingPayout();
      logged.length = 0;
      // every transfer the worker looks at is refused for good (those of earlier rounds, tried again, too)
      chain.prepared = Array.from({ length: 20 }, () => ({ kind: 'refused' as const, why: GIVEN_UP, permanent: true }));
      let operator: Promise<Awaited<ReturnType<typeof race.t.app.inject>>> | null = null;
      let done = false;
      const runOperator = () => {
        operator = race.t.app.inject({ method: 'POST', url: `/admin/settlements/${s.id}/retry`, headers: ADMIN, remoteAddress: randomIp() }).finally(() => { done = true; });
      };
      let holds: () => void = () => {};
      const held = new Promise<void>((r) => { holds = r; });
      // the step has listed the settlement pending; the worker gives its payout up now, the settlement failed
      const giveUp = async () => {
        await race.stepper.pass();
        expect(await row(s.id)).toMatchObject({ status: 'failed', note: GIVEN_UP });
      };
      if (round % 2 === 0) {
        // the operator's retry while the step holds its first lock
        beforeStepLock = giveUp;
        afterStepLock = async () => { runOperator(); await untilWaitingOr(() => done); };
        inOperator = null;
      } else {
        // the step goes on while the operator's retry holds its locks
        beforeStepLock = async () => { await giveUp(); runOperator(); await Promise.race([held, operator]); };
        afterStepLock = null;
        inOperator = async () => { holds(); await untilWaitingOr(() => done); };
      }
      watched = s.payout;
      const step = advanceConversions(race.db, race.t.services.settlement.deps, clock.now(), log).finally(() => { done = true; });
      await step;
      const res = await operator!;
      watched = '';

      // neither transaction was aborted (a deadlock): the operator answered, the step logged no retry
      expect(logged.filter((l) => ABORTED.test(l)), `round ${round}`).toEqual([]);
      expect([res.statusCode, res.json().settlement?.status], `round ${round}`).toEqual([200, 'pending']);
      expect(await row(s.id)).toMatchObject({ status: 'pending', note: null });
      expect((await row(s.id)).conversion).toMatchObject({ status: 'pending', payout: s.payout });
      expect(await transfer(s.payout)).toMatchObject({ status: 'recorded', failures: 0 });
    }
    await expectLedgerHolds(race.db);
  }, 60_000);
});
