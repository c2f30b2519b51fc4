// A treasury conversion's payout waiting for the hot wallet's funds, its destination refused
// meanwhile: the conversion step calls the payout back (conversions.ts step 3) while the transfer
// worker gives the same payout up and fails its settlement (stepper.ts, outcomes.ts), both at once.
// Both take the payout transfer's row and the settlement's row; they once took them in opposite
// orders (the step the settlement's first, the worker the transfer's first), so PostgreSQL found a
// deadlock and aborted one of the two, each logged and tried again on its next pass. Now both take
// the transfer's first: one waits for the other, and exactly one of the two outcomes stands. Each
// round runs the worker's pass while the conversion step holds its first lock, and every other
// round starts the two together the other way round. PostgreSQL only: PGlite has one connection.
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { pgServerUrl } from '../harness/databases.ts';
import { signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment } from '../harness/settlement.ts';
import { untilLockWaiterOr } from '../harness/lock-waits.ts';
import { ABORTED, GIVEN_UP, transferRace } from '../harness/transfer-race.ts';
import type { Actor } from '../../src/audit/index.ts';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { WAITING_FUNDS } from '../../src/chains/transfers/types.ts';
import { advanceConversions } from '../../src/settlement/conversions.ts';
import { ledgerEntries, payoutAddresses, settlements, type OwnAddressCheck } from '../../src/settlement/index.ts';
import type { StoredConversion } from '../../src/settlement/json.ts';

const skip = !pgServerUrl();
if (skip) console.log('conversion step against the transfer worker skipped: no PostgreSQL server');

const ETH = 10n ** 18n;
const USDT_ERC20_CONTRACT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const ROUNDS = 6;

describe.skipIf(skip)('a conversion\'s payout called back while the transfer worker gives it up [postgres]', () => {
  /** Runs in the worker's transaction that gives the payout up, before it reports that to the settlement. */
  let inWorker: (() => Promise<void>) | null = null;
  const race = transferRace({ inWorker: () => inWorker });
  const { clock, log, logged, chain } = race;
  const outcomes: string[] = [];
  const untilWaitingOr = (done: () => boolean) => untilLockWaiterOr(race.db, done);

  /** A live ETH settlement converting into USDT_ERC20: swept, its payout recorded and waiting for the hot wallet's funds, its destination refused by now. */
  async function waitingPayout(): Promise<{ id: string; paymentId: string; payout: string; c: StoredConversion }> {
    const acct = await signupAccount(race.t.app);
    const owner = await addMember(race.t, acct.merchant.id, 'owner');
    const actor: Actor = { kind: 'merchant', id: owner.userId };
    const address = await race.t.services.settlement.addresses.add({ merchantId: acct.merchant.id, userId: owner.userId, actor }, true, { token: 'USDT_ERC20', address: ADDR.EVM, password: owner.password });
    const p = payment(acct.merchant.id, { livemode: true, token: 'ETH', rate_locked: '3000', deposit_address: '0x00000000000000000000000000000000000000d1' });
    const [s] = await race.t.services.settlement.settle(race.db, input(p, [{ amount: ETH, usd: '3000' }]));
    await race.db.orm.update(outgoingTransfers).set({ status: 'final', txId: '0xsweep' }).where(and(eq(outgoingTransfers.reference, s.id), eq(outgoingTransfers.purpose, 'sweep')));
    await advanceConversions(race.db, race.t.services.settlement.deps, clock.now(), log);
    const c = (await row(s.id)).conversion as StoredConversion;
    expect(c.payout).toBeDefined();
    await race.db.orm.update(outgoingTransfers).set({ waiting: WAITING_FUNDS, lastError: 'the hot wallet holds 0 of USDT_ERC20' }).where(eq(outgoingTransfers.id, c.payout!));
    // refused by now (as an old database holds it: the token contract)
    await race.db.orm.update(settlements).set({ destination: USDT_ERC20_CONTRACT }).where(eq(settlements.id, s.id));
    await race.db.orm.update(payoutAddresses).set({ address: USDT_ERC20_CONTRACT }).where(eq(payoutAddresses.id, address.id));
    return { id: s.id, paymentId: s.paymentId, payout: c.payout!, c };
  }

  const row = async (id: string) => (await race.db.orm.select().from(settlements).where(eq(settlements.id, id)))[0];
  const transfer = async (id: string) => (await race.db.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id)))[0];

  it('one of the two stands, neither is aborted, nothing is paid or kept twice', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = await waitingPayout();
      logged.length = 0;
      chain.prepared = [{ kind: 'refused', why: GIVEN_UP, permanent: true }];
      let worker: Promise<void> | null = null;
      let step: Promise<number> | null = null;
      let done = false;
      const real = race.t.services.settlement.deps.ownAddresses;
      // even rounds: the worker's pass runs while the conversion step looks the refusal up, its first lock held
      const ownAddresses: OwnAddressCheck = async (ex, token, address) => {
        if (!worker) {
          worker = race.stepper.pass().finally(() => { done = true; });
          await untilWaitingOr(() => done);
        }
        return real(ex, token, address);
      };
      const runStep = () => { step = advanceConversions(race.db, { ...race.t.services.settlement.deps, ownAddresses }, clock.now(), log).finally(() => { done = true; }); };
      // odd rounds: the conversion step runs while the worker reports the payout given up, its first lock held
      inWorker = round % 2 === 1 ? async () => { runStep(); await untilWaitingOr(() => done); } : null;
      if (round % 2 === 0) runStep(); else worker = race.stepper.pass();
      await (round % 2 === 0 ? step : worker);
      await (round % 2 === 0 ? worker : step);
      outcomes.push(round % 2 === 0 ? 'step first' : 'worker first');

      // neither transaction was aborted (a deadlock) and left for the next pass
      expect(logged.filter((l) => ABORTED.test(l)), `round ${round}`).toEqual([]);
      const [stl, payout] = [await row(s.id), await transfer(s.payout)];
      const returned = (await race.db.orm.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, s.paymentId))).filter((e) => e.type === 'settlement_return');
      if (payout.status === 'canceled') {
        // called back: what the conversion bought is in the balance, once
        expect(stl).toMatchObject({ status: 'completed', mode: 'custodial' });
        outcomes[outcomes.length - 1] += ': called back';
        expect(returned.map((e) => [e.token, e.amount])).toEqual([['USDT_ERC20', BigInt(s.c.amount_out)]]);
      } else {
        // given up by the worker first: the settlement failed (the operator retries or returns it)
        expect(payout.status).toBe('failed');
        expect(stl).toMatchObject({ status: 'failed', mode: 'direct', note: GIVEN_UP });
        expect(returned).toEqual([]);
        outcomes[outcomes.length - 1] += ': given up';
      }
    }
    // each lock taken first wins: the other waits for it and then finds nothing left to do
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, (_, i) => (i % 2 === 0 ? 'step first: called back' : 'worker first: given up')));
    await expectLedgerHolds(race.db);
  }, 60_000);
});
