// Sign-up: a merchant, its owner, the first test and live keys and a session, in one transaction.
import { conflict } from '../platform/errors.ts';
import { requireCapped, tooLongMessage } from '../platform/text-input.ts';
import { newId } from '../platform/ids.ts';
import type { Database, Tx } from '../platform/db/index.ts';
import { merchants, users, type ApiKeyRow, type MerchantRow, type UserRow } from './schema.ts';
import { hashPassword } from './passwords.ts';
import { insertApiKey } from './api-keys.ts';
import { openSession } from './sessions.ts';
import { DEFAULT_FEE_BPS } from './merchant.ts';
import { EMAIL_TAKEN, isUniqueViolation, requireEmail, requireNewPassword } from './validate.ts';
import type { RequestOrigin } from '../audit/index.ts';

export const MERCHANT_NAME_REQUIRED = 'merchant_name is required';
/** Characters (code points, once trimmed) a merchant's name may have. */
export const MERCHANT_NAME_MAX = 200;
export const MERCHANT_NAME_TOO_LONG = tooLongMessage('merchant_name', MERCHANT_NAME_MAX);

export interface SignupInput {
  merchant_name?: unknown;
  email?: unknown;
  password?: unknown;
  referral_code?: unknown;
}

export interface SignupResult {
  merchant: MerchantRow;
  user: UserRow;
  keys: { row: ApiKeyRow; secret: string }[];
  sessionId: string;
  refreshToken: string;
}

/** What another room learns of a signup, inside its transaction (the referral program enrolls the merchant). */
export interface SignupEnrollment {
  merchant: MerchantRow;
  user: UserRow;
  /** As given: the referral program decides whether it names anyone. */
  referralCode: string | null;
  /** The signup request, for the actor of what the hook audits (a referral). */
  origin: RequestOrigin;
  at: Date;
}
export type SignupHook = (tx: Tx, s: SignupEnrollment) => Promise<void>;

export async function signup(db: Database, input: SignupInput, now: Date, origin: RequestOrigin, hook?: SignupHook): Promise<SignupResult> {
  const name = requireCapped('merchant_name', input.merchant_name, MERCHANT_NAME_REQUIRED, MERCHANT_NAME_MAX);
  const email = requireEmail(input.email);
  const password = requireNewPassword(input.password);
  // Kept as given when it could be a code (8 of A-Z0-9, any case); anything else names no one.
  const referral = typeof input.referral_code === 'string' && /^[A-Za-z0-9]{8}$/.test(input.referral_code.trim()) ? input.referral_code.trim().toUpperCase() : null;
  const passwordHash = await hashPassword(password);
  try {
    return await db.transaction(async (tx) => {
      const [merchant] = await tx.insert(merchants).values({
        id: newId('mer', now), name, status: 'active', feeBps: DEFAULT_FEE_BPS, liveEnabled: false,
        underpaidToleranceBps: 50, acceptOtherAssets: false, settlement: 'direct', payoutSchedule: 'daily',
        feesPaidByCustomer: true, convertInto: 'cheapest', hideBelowMinimum: false, enabledTokens: null,
        referralCode: referral, createdAt: now, updatedAt: now,
      }).returning();
      const [user] = await tx.insert(users).values({
        id: newId('usr', now), merchantId: merchant.id, email, passwordHash, role: 'owner', createdAt: now, lastLoginAt: now,
      }).returning();
      const keys = [
        await insertApiKey(tx, { merchantId: merchant.id, livemode: false, label: 'default', access: 'full', createdBy: user.id, at: now }),
        await insertApiKey(tx, { merchantId: merchant.id, livemode: true, label: 'default', access: 'full', createdBy: user.id, at: now }),
      ];
      await hook?.(tx, { merchant, user, referralCode: referral, origin, at: now });
      const { sessionId, refreshToken } = await openSession(tx, user.id, merchant.id, now);
      return { merchant, user, keys, sessionId, refreshToken };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN);
    throw err;
  }
}
