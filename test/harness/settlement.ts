// Fixtures of the settlement room's integration tests: team members with a fresh access token at
// the test clock's time, sample payout addresses, settle inputs, a merchant due a scheduled payout,
// and the ledger invariant.
import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { newId } from '../../src/platform/ids.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { eq } from 'drizzle-orm';
import { merchants, sessions, users } from '../../src/accounts/schema.ts';
import type { Role } from '../../src/accounts/index.ts';
import type { Database } from '../../src/platform/db/index.ts';
import { checkLedger, type SettleInput, type SettlePayment } from '../../src/settlement/index.ts';
import type { TokenSymbol } from '../../src/tokens/index.ts';
import { signupAccount, uid } from './accounts.ts';

export const ADDR = {
  TRON: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', TRON_2: 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK', TRON_3: 'TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ',
  EVM: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', EVM_2: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  BTC: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', BTC_TESTNET: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
  XRP: 'rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3',
};

export interface Member { userId: string; password: string; token(): Promise<string> }

const hashes = new Map<string, Promise<string>>();

/**
 * A team member of `role` with a session; token() signs a fresh access token at the app clock's now.
 * A `password` given is hashed once per test file, so many members sharing it cost no more scrypt.
 */
export async function addMember(t: TestApp, merchantId: string, role: Role, existingUserId?: string, password = `pw-${uid()}-secret`): Promise<Member> {
  const { db, clock } = t.platform;
  const now = clock.now();
  const userId = existingUserId ?? newId('usr', now);
  if (!existingUserId) {
    if (!hashes.has(password)) hashes.set(password, hashPassword(password));
    await db.orm.insert(users).values({ id: userId, merchantId, email: `${role}-${uid()}@example.com`, passwordHash: await hashes.get(password)!, role, createdAt: now });
  }
  const sessionId = newId('ses', now);
  await db.orm.insert(sessions).values({ id: sessionId, userId, merchantId, createdAt: now, expiresAt: new Date(now.getTime() + 30 * 86_400_000) });
  return {
    userId, password,
    token: async () => (await t.services.accounts.tokens.issue({ userId, merchantId, sessionId, role }, clock.now())).token,
  };
}

/** The ledger invariant: every balance equals its ledger (npm run check:ledger). */
export async function expectLedgerHolds(db: Database): Promise<void> {
  expect(await checkLedger(db.orm)).toEqual([]);
}

export function payment(merchantId: string, opts: Partial<SettlePayment> = {}): SettlePayment {
  return {
    id: newId('pay'), merchant_id: merchantId, livemode: false, token: 'USDT_TRC20', rate_locked: '1', fee_bps: 100,
    settlement: 'direct', convert_into: 'cheapest', ...opts,
  };
}

export function input(p: SettlePayment, deposits: { token?: TokenSymbol; amount: bigint; usd: string; tx?: string }[], at = new Date()): SettleInput {
  return {
    payment: p,
    deposits: deposits.map((d) => ({ tx_id: d.tx ?? `tx_${uid()}`, token: d.token ?? (p.token as TokenSymbol), amount: d.amount, usd_value: d.usd, final_at: at })),
  };
}

/**
 * A merchant paid out daily (`settlement: scheduled`) with `usd` dollars of live USDT (Tron)
 * credited and a payout address for it: the next hourly run of scheduled payouts pays it out.
 */
export async function scheduledMerchantWithBalance(t: TestApp, usd: number): Promise<string> {
  const acct = await signupAccount(t.app);
  const merchantId = acct.merchant.id;
  const owner = await addMember(t, merchantId, 'owner');
  await t.platform.db.orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'daily' }).where(eq(merchants.id, merchantId));
  await t.services.settlement.addresses.add({ merchantId, userId: owner.userId, actor: { kind: 'merchant', id: owner.userId } }, true,
    { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
  await t.services.settlement.settle(t.platform.db, input(payment(merchantId, { livemode: true, settlement: 'scheduled' }), [{ amount: BigInt(usd) * 1_000_000n, usd: String(usd) }]));
  return merchantId;
}
