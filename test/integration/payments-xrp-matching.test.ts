// XRP deposits are matched by destination tag only (CONTRACT.md "Live chains"): every XRP payment of
// a mode shares the service address, so a payment to it with no tag, or with a tag no payment has,
// is unmatched, never credited to the newest XRP payment; the right tag finds its own payment
// whatever its age, and other chains still match by address alone.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment } from '../harness/payments.ts';
import { findByAddress } from '../../src/payments/repository.ts';

describeEachDb('XRP deposits matched by destination tag', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const report = (address: string, tag: number | undefined, txId: string, amount = 1_000_000n) =>
    t.services.payments.intake.recordDeposit(tag === undefined ? { address } : { address, tag }, {
      txId, token: 'XRP', amount, confirmations: 1, at: t.platform.clock.now(),
    });

  it('no tag, or an unknown tag, is unmatched; the tag finds its own payment, not the newest', async () => {
    const older = await createPayment(t.app, acct.testKey, { token: 'XRP' });
    const newer = await createPayment(t.app, acct.testKey, { token: 'XRP' });
    expect(older.deposit_address).toBe(newer.deposit_address);
    expect(older.destination_tag).not.toBe(newer.destination_tag);
    const address = older.deposit_address as string;

    expect(await findByAddress(t.platform.db.orm, address)).toBeUndefined();
    expect(await report(address, undefined, 'AA'.repeat(32))).toEqual({ kind: 'unmatched' });
    const unknownTag = Math.max(older.destination_tag, newer.destination_tag) + 1000;
    expect(await report(address, unknownTag, 'BB'.repeat(32))).toEqual({ kind: 'unmatched' });
    expect((await getPayment(t.app, acct.testKey, newer.id)).deposits).toEqual([]);
    expect((await getPayment(t.app, acct.testKey, older.id)).deposits).toEqual([]);

    const matched = await report(address, older.destination_tag, 'CC'.repeat(32));
    expect(matched.kind).toBe('recorded');
    if (matched.kind === 'recorded') expect(matched.payment.id).toBe(older.id);
    expect((await getPayment(t.app, acct.testKey, older.id)).deposits).toHaveLength(1);
    expect((await getPayment(t.app, acct.testKey, newer.id)).deposits).toEqual([]);
  });

  it('an address of another chain still matches without a tag', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'ETH' });
    expect((await findByAddress(t.platform.db.orm, p.deposit_address))?.id).toBe(p.id);
  });
});
