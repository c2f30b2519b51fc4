// `POST /merchant/affiliate/payouts` (spec 4.4 "Referral payouts"), its refusals checked in the
// order of spec 7 "Referral payout request": role and rate limit are the route's (before the body
// is read); then the body's shape, the password for an `address` outside the payout addresses,
// an open payout, the target (never the service's own address or a token contract), and the
// amount. The amount is held at once (`payout_hold`: out of `available`, into `pending_payout`);
// the payout is due `payout_days` business days later.
import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../../platform/db/index.ts';
import { badRequest, conflict, forbidden, INVALID_REQUEST_BODY } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { isIdShaped } from '../../platform/fields.ts';
import type { Actor } from '../../audit/index.ts';
import { users, verifyPassword } from '../../accounts/index.ts';
import { validatePayoutAddress } from '../../chains/addresses/index.ts';
import { decimalText, dec, parseUnits } from '../../money/index.ts';
import { refuseInactive, networkFeeUnits, payoutAddresses, type OwnAddressCheck } from '../../settlement/index.ts';
import type { MarketSource } from '../../market/index.ts';
import type { ReferralTerms } from '../../config.ts';
import { lockAffiliate, moveBalance } from '../balance.ts';
import { affiliatePayouts, type AffiliatePayoutRow } from '../schema.ts';
import { businessDaysAfter, REFERRAL_DECIMALS, REFERRAL_TOKEN } from '../terms.ts';
import {
  ADDRESS_OR_ID, AMOUNT_NOT_POSITIVE, INVALID_TRON_ADDRESS, NO_PAYOUT_TARGET, NOT_USDT_TRON, PASSWORD_INCORRECT, PAYOUT_OPEN,
  TOO_MANY_DECIMALS, UNKNOWN_PAYOUT_ADDRESS, belowNetworkFee, minPayoutMessage, referralBalanceHolds,
} from './errors.ts';
import { payoutChanged } from './events.ts';
import { OPEN_STATUSES } from './moves.ts';

import type { Recheck } from '../../accounts/recheck-limit.ts';

export interface PayoutRequester { merchantId: string; userId: string; actor: Actor }
export interface RequestDeps { db: Database; market: MarketSource; terms: ReferralTerms; ownAddresses: OwnAddressCheck; now: Date; recheck: Recheck }

const given = (v: unknown): boolean => v !== undefined && v !== null;

/** Step 3: the amount as a plain decimal text (undefined: all of it), or 400 `invalid request body`. */
function requestedAmount(v: unknown): string | undefined {
  if (!given(v)) return undefined;
  const text = decimalText(v);
  if (text === null) throw badRequest(INVALID_REQUEST_BODY);
  return text;
}

/** Steps 11-12: base units of USDT_TRC20; undefined for 0 (all of it). */
function amountUnits(text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  const d = dec(text);
  if (d.isNegative() && !d.isZero()) throw badRequest(AMOUNT_NOT_POSITIVE);
  if (d.isZero()) return undefined;
  if (d.decimalPlaces() > REFERRAL_DECIMALS) throw badRequest(TOO_MANY_DECIMALS);
  return parseUnits(d.toFixed(), REFERRAL_DECIMALS)!;
}

async function checkPassword(db: Database, userId: string, password: unknown): Promise<void> {
  const [user] = await db.orm.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  const ok = typeof password === 'string' && password.length > 0 && user !== undefined && await verifyPassword(password, user.hash);
  if (!ok) throw forbidden(PASSWORD_INCORRECT);
}

/**
 * Steps 6-10: where the payout goes. A payout address not active yet (a new or changed one, 24
 * hours: `active_at`), named or the default, is refused with 409 as merchant payouts are: one that
 * could redirect the money is paid out to only from its `active_at`.
 */
async function target(tx: Executor, merchantId: string, body: Record<string, unknown>, now: Date): Promise<{ addressId: string | null; address: string }> {
  if (given(body.address_id) && given(body.address)) throw badRequest(ADDRESS_OR_ID);
  if (given(body.address)) {
    const check = validatePayoutAddress(REFERRAL_TOKEN, body.address, true);
    if (!check.ok) throw badRequest(INVALID_TRON_ADDRESS);
    return { addressId: null, address: check.normalized };
  }
  const inForce = and(eq(payoutAddresses.merchantId, merchantId), isNull(payoutAddresses.deletedAt));
  if (given(body.address_id)) {
    const [a] = isIdShaped(body.address_id)
      ? await tx.select().from(payoutAddresses).where(and(inForce, eq(payoutAddresses.id, body.address_id))) : [];
    if (a && a.livemode && a.token !== REFERRAL_TOKEN) throw badRequest(NOT_USDT_TRON);
    if (!a || !a.livemode) throw badRequest(UNKNOWN_PAYOUT_ADDRESS);
    refuseInactive(a, now);
    return { addressId: a.id, address: a.address };
  }
  // Neither: the default live USDT (Tron) address, the oldest when none is the default.
  const [d] = await tx.select().from(payoutAddresses).where(and(inForce, eq(payoutAddresses.livemode, true), eq(payoutAddresses.token, REFERRAL_TOKEN)))
    .orderBy(desc(payoutAddresses.isDefault), asc(payoutAddresses.createdAt), asc(payoutAddresses.id)).limit(1);
  if (!d) throw badRequest(NO_PAYOUT_TARGET);
  refuseInactive(d, now);
  return { addressId: d.id, address: d.address };
}

/**
 * The network fee of sending USDT on Tron, from the market, in base units (one token is one dollar);
 * null when the market cannot quote it: the checks after it still answer before the 500 (spec 7 lists
 * `could not request the payout` last).
 */
function networkFee(market: MarketSource): bigint | null {
  try {
    return networkFeeUnits(REFERRAL_TOKEN, market.snapshot(true)[REFERRAL_TOKEN].networkFeeUsd, dec(1));
  } catch {
    return null;
  }
}

export async function requestPayout(deps: RequestDeps, who: PayoutRequester, body: unknown): Promise<Record<string, unknown>> {
  const { db, now } = deps;
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badRequest(INVALID_REQUEST_BODY);
  const b = (body ?? {}) as Record<string, unknown>;
  const text = requestedAmount(b.amount);
  // step 4, the only re-check: the limit of wrong passwords is this step's, so a request with no
  // `address` (nothing guessed) or a body refused at step 3 never meets it
  if (given(b.address)) await deps.recheck(() => checkPassword(db, who.userId, b.password));
  return db.transaction(async (tx) => {
    const affiliate = await lockAffiliate(tx, who.merchantId, now);
    const [open] = await tx.select({ id: affiliatePayouts.id }).from(affiliatePayouts)
      .where(and(eq(affiliatePayouts.affiliateId, who.merchantId), inArray(affiliatePayouts.status, [...OPEN_STATUSES]))).limit(1);
    if (open) throw conflict(PAYOUT_OPEN);
    const to = await target(tx, who.merchantId, b, now);
    // given, chosen or the default (one stored before payout addresses were checked for this too):
    // never the service's own address or the USDT contract
    const refusal = await deps.ownAddresses(tx, REFERRAL_TOKEN, to.address);
    if (refusal) throw badRequest(refusal);
    const amount = amountUnits(text) ?? affiliate.available;
    if (amount < parseUnits(deps.terms.minPayoutUsd, REFERRAL_DECIMALS)!) throw badRequest(minPayoutMessage(deps.terms.minPayoutUsd));
    const fee = networkFee(deps.market);
    if (fee !== null && amount <= fee) throw badRequest(belowNetworkFee(fee));
    if (amount > affiliate.available) throw badRequest(referralBalanceHolds(affiliate.available));
    if (fee === null) throw new Error('the network fee of USDT_TRC20 could not be quoted');
    const row: AffiliatePayoutRow = {
      id: newId('apo', now), affiliateId: who.merchantId, amount, networkFee: fee, sendAmount: amount - fee, addressId: to.addressId,
      address: to.address, status: 'requested', dueAt: businessDaysAfter(now, deps.terms.payoutDays), requestedBy: who.userId,
      txId: null, note: null, approvedAt: null, paidAt: null, rejectedAt: null, canceledBy: null, canceledAt: null, createdAt: now, updatedAt: now,
    };
    await tx.insert(affiliatePayouts).values(row);
    const json = await payoutChanged(tx, row, who.actor, now);
    await moveBalance(tx, affiliate, { entry: { type: 'payout_hold', amount: -amount, reference: row.id }, pendingPayout: amount }, now);
    return json;
  });
}
