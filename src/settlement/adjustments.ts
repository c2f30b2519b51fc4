// Corrections by the service's team (CONTRACT.md operator API `POST /admin/ledger/adjustments`):
// one `adjustment` entry with its balance, audited in the merchant's log with actor kind admin.
import { eq } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import { badRequest } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { NOTE_MAX, requireCapped } from '../platform/text-input.ts';
import { usdRateOf, type MarketSource } from '../market/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { merchants } from '../accounts/schema.ts';
import { amountText, parseUnits, unitsToDecimal, usdHalfUp } from '../money/index.ts';
import { isToken, TOKEN_DEFS } from '../tokens/index.ts';
import { emitBalances, lockBalance, postEntries } from './balance-store.ts';
import type { LedgerRow } from './schema.ts';
import { ledgerEntryJson } from './json.ts';

export const UNKNOWN_MERCHANT = 'unknown merchant_id';
export const LIVEMODE_REQUIRED = 'livemode (true or false) is required';
export const TOKEN_REQUIRED = 'token must be one of the supported tokens';
export const ADJUST_AMOUNT_INVALID = 'amount must be a non-zero signed decimal of the token (e.g. "-1.5")';
export const ADJUST_NOTE_REQUIRED = 'note is required';
export const ADJUST_BELOW_ZERO = 'the adjustment would take the balance below zero';

function signedUnits(v: unknown, decimals: number): bigint | undefined {
  const text = amountText(v) ?? '';
  const m = /^([+-]?)(\d+(?:\.\d+)?)$/.exec(text);
  if (!m) return undefined;
  const units = parseUnits(m[2], decimals);
  if (units === undefined || units === 0n) return undefined;
  return m[1] === '-' ? -units : units;
}

export async function adjustLedger(db: Database, clock: Clock, market: MarketSource, body: Record<string, unknown>, actor: Actor): Promise<LedgerRow> {
  if (typeof body.merchant_id !== 'string') throw badRequest(UNKNOWN_MERCHANT);
  if (typeof body.livemode !== 'boolean') throw badRequest(LIVEMODE_REQUIRED);
  if (!isToken(body.token)) throw badRequest(TOKEN_REQUIRED);
  const token = body.token;
  const amount = signedUnits(body.amount, TOKEN_DEFS[token].decimals);
  if (amount === undefined) throw badRequest(ADJUST_AMOUNT_INVALID);
  const note = requireCapped('note', body.note, ADJUST_NOTE_REQUIRED, NOTE_MAX);
  const [m] = await db.orm.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, body.merchant_id));
  if (!m) throw badRequest(UNKNOWN_MERCHANT);
  const now = clock.now();
  const key = { merchantId: m.id, livemode: body.livemode };
  const rate = usdRateOf(market.snapshot(body.livemode), token);
  return db.transaction(async (tx) => {
    const balance = await lockBalance(tx, key, token, now);
    if (balance.available + amount < 0n) throw badRequest(ADJUST_BELOW_ZERO);
    const [entry] = await postEntries(tx, key, [{
      type: 'adjustment', token, chain: TOKEN_DEFS[token].chain, amount,
      usd_amount: usdHalfUp(unitsToDecimal(amount, TOKEN_DEFS[token].decimals).mul(rate)), reference: newId('adj', now), note,
    }], now);
    await emitBalances(tx, key, now);
    await recordAudit(tx, { merchantId: m.id, action: 'ledger.adjusted', actor, subject: `${m.id}:${key.livemode ? 'live' : 'test'}`, after: ledgerEntryJson(entry), note, at: now });
    return entry;
  });
}
