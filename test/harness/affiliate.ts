// Fixtures of the referral program's integration tests: operator calls, referred merchants,
// live deposits that earn commissions, and the referral balance's invariant.
import { expect } from 'vitest';
import { eq } from 'drizzle-orm';
import type { TestApp } from './app.ts';
import { randomIp, signupAccount, type Account } from './accounts.ts';
import { input, payment, type Member } from './settlement.ts';
import type { Database } from '../../src/platform/db/index.ts';
import { newId } from '../../src/platform/ids.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { sessions, users } from '../../src/accounts/schema.ts';
import type { Role } from '../../src/accounts/index.ts';
import { affiliates, checkReferralBalances } from '../../src/affiliate/index.ts';
import type { SettlePayment } from '../../src/settlement/index.ts';

export const ADMIN = { authorization: 'Bearer test-admin-token' };

export function admin(t: TestApp, method: 'GET' | 'POST', url: string, payload?: unknown) {
  return t.app.inject({ method, url, headers: ADMIN, remoteAddress: randomIp(), ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

const hashes = new Map<string, Promise<string>>();

/**
 * A team member of `role` with a session, like the settlement harness's, but cheap: the password
 * is one per role (`<role>-password`), hashed once per test file, so many members cost no scrypt.
 */
export async function member(t: TestApp, merchantId: string, role: Role): Promise<Member> {
  const { db, clock } = t.platform;
  const now = clock.now();
  const password = `${role}-password`;
  if (!hashes.has(password)) hashes.set(password, hashPassword(password));
  const userId = newId('usr', now);
  await db.orm.insert(users).values({ id: userId, merchantId, email: `${role}-${userId}@example.com`, passwordHash: await hashes.get(password)!, role, createdAt: now });
  const sessionId = newId('ses', now);
  await db.orm.insert(sessions).values({ id: sessionId, userId, merchantId, createdAt: now, expiresAt: new Date(now.getTime() + 30 * 86_400_000) });
  return {
    userId, password,
    token: async () => (await t.services.accounts.tokens.issue({ userId, merchantId, sessionId, role }, clock.now())).token,
  };
}

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
