// The audit entry of a reorganisation deeper than the confirmations (a final deposit's block taken)
// is written in the transaction that moves the cursor back to the common ancestor (outbox rule): a
// crash or a lost cursor between them neither leaves the entry without the rollback (which the next
// pass, finding the same reorganisation, would write again) nor the rollback without the entry.
// The counters (/metrics) and the error log follow the rollback too: a failed one counts nothing,
// so the same reorganisation handled again is counted and logged once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { deposits, payments } from '../../src/payments/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { CursorStore, CursorMoved } from '../../src/chains/watch/cursor-store.ts';
import { DEEP_REORG_ACTION, ReorgHandler } from '../../src/chains/watch/reorg-handler.ts';
import type { DepositFeed } from '../../src/chains/watch/deposit-feed.ts';
import type { BlockRef } from '../../src/chains/watch/types.ts';

const block = (height: number, hash: string): BlockRef => ({ height: BigInt(height), hash, parentHash: `${hash}-parent`, time: new Date('2026-01-01T00:00:00Z') });

describeEachDb('the audit entry of a deep reorganisation', (h) => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(h.db()); });
  afterAll(async () => { await t.close(); });

  it('commits with the cursor\'s rollback: none when the rollback fails, one when it is done again', async () => {
    const acct = await signupAccount(t.app);
    const p = await createPayment(t.app, acct.testKey, { token: 'ETH', amount_usd: '20' });
    const orm = h.db().orm;
    // a live Ethereum payment whose deposit in block 105 is final
    await orm.update(payments).set({ livemode: true, chain: 'ethereum', status: 'confirmed' }).where(eq(payments.id, p.id));
    await orm.insert(deposits).values({
      id: `dep_${p.id}`, paymentId: p.id, txId: '0xdeep', token: 'ETH', amount: 10n ** 16n, usdValue: '20', counted: true,
      confirmations: 3, confirmationsRequired: 3, status: 'final', simulated: false, late: false, block: 105,
      seenAt: new Date(), finalAt: new Date(),
    });
    const chain = 'ethereum' as const;
    const cursors = new CursorStore(h.db(), 64);
    await cursors.init(chain, block(110, '0x110'), 'mainnet', new Date());
    const cursor = (await cursors.load(chain))!;
    const clock = new ManualClock(new Date('2026-01-02T00:00:00Z'));
    const counted = { reorgs: 0, deep: 0 };
    const logged: Array<{ level: number; msg: string }> = [];
    const log = createLogger('warn', { write: (line: string) => { logged.push(JSON.parse(line) as { level: number; msg: string }); } });
    const errors = () => logged.filter((l) => l.level >= 50).map((l) => l.msg);
    const handler = new ReorgHandler({
      db: h.db(), cursors, clock, log,
      feed: { orphan: async () => undefined } as unknown as DepositFeed,
      counters: { reorg: () => { counted.reorgs += 1; }, deepReorg: () => { counted.deep += 1; } },
    });
    const ancestor = { block: block(100, '0x100'), depth: BigInt(cursor.height) - 100n, beyondKept: false };
    const entries = () => orm.select().from(auditEntries)
      .where(and(eq(auditEntries.merchantId, acct.merchant.id), eq(auditEntries.action, DEEP_REORG_ACTION)));

    // another process moved the cursor meanwhile: the rollback fails, and so does its audit entry
    await expect(handler.handle(chain, { ...block(110, '0x110'), height: cursor.height, hash: 'not-the-cursor' }, ancestor)).rejects.toBeInstanceOf(CursorMoved);
    expect(await entries()).toEqual([]);
    expect((await cursors.load(chain))!.height).toBe(cursor.height);
    // nothing followed: not counted in /metrics, not logged
    expect(counted).toEqual({ reorgs: 0, deep: 0 });
    expect(errors()).toEqual([]);

    // the same reorganisation handled again: the cursor goes back and the entry is written once
    await handler.handle(chain, { ...block(110, '0x110'), height: cursor.height, hash: cursor.hash }, ancestor);
    expect((await entries()).map((e) => [e.subject, e.paymentId, (e.actor as { kind: string }).kind])).toEqual([['0xdeep', p.id, 'system']]);
    expect((await cursors.load(chain))!.height).toBe(100n);
    // counted and logged once, for the rollback that committed
    expect(counted).toEqual({ reorgs: 1, deep: 1 });
    expect(errors()).toEqual(['chain watch: a reorganisation took the block of a final deposit; its payment is not reversed']);
  });
});
