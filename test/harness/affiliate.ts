// Fixtures of the referral program's integration tests: operator calls, referred merchants,
// live deposits that earn commissions, and the referral balance's invariant.
import { expect } from 'vitest';
import { eq } from 'drizzle-orm';
import type { TestApp } from './app.ts';
import { randomIp, signupAccount, type Account } from './accounts.ts';
import { addMember, input, payment, type Member } from './settlement.ts';
import type { Database } from '../../src/platform/db/index.ts';
import type { Role } from '../../src/accounts/index.ts';
import { affiliates, checkReferralBalances } from '../../src/affiliate/index.ts';
import type { SettlePayment } from '../../src/settlement/index.ts';

export const ADMIN = { authorization: 'Bearer test-admin-token' };

export function admin(t: TestApp, method: 'GET' | 'POST', url: string, payload?: unknown) {
  return t.app.inject({ method, url, headers: ADMIN, remoteAddress: randomIp(), ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

/** A team member of `role` whose password is one per role (`<role>-password`): cheap to make many. */
export const member = (t: TestApp, merchantId: string, role: Role): Promise<Member> => addMember(t, merchantId, role, undefined, `${role}-password`);

/** The referral code of a merchant. */
export async function codeOf(db: Database, merchantId: string): Promise<string> {
  const [a] = await db.orm.select({ code: affiliates.code }).from(affiliates).where(eq(affiliates.merchantId, merchantId));
  return a.code;
}

/** A merchant that signed up with `code`. */
export const referredBy = (t: TestApp, code: string): Promise<Account> => signupAccount(t.app, { referral_code: code });

/** Settles a live USDT_TRC20 deposit of `usd` dollars of the merchant (service fee: 1%, at least $0.20). */
export async function liveDeposit(t: TestApp, merchantId: string, usd: string, opts: Partial<SettlePayment> & { tx?: string } = {}) {
  const p = payment(merchantId, { livemode: true, settlement: 'custodial', ...opts });
  const units = BigInt(Math.round(Number(usd) * 1e6));
  const [s] = await t.services.settlement.settle(t.platform.db, input(p, [{ amount: units, usd, tx: opts.tx }], t.platform.clock.now()));
  return { payment: p, settlement: s };
}

/** Credits a merchant's referral balance through the operator route. */
export async function credit(t: TestApp, merchantId: string, amount: string): Promise<void> {
  const res = await admin(t, 'POST', '/admin/affiliate/adjustments', { merchant_id: merchantId, amount, note: 'test credit' });
  expect(res.statusCode, res.body).toBe(201);
}

/** Every referral balance equals its entries and payouts (npm run check:ledger). */
export async function expectReferralBalancesHold(db: Database): Promise<void> {
  expect(await checkReferralBalances(db.orm)).toEqual([]);
}
