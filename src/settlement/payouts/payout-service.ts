// Merchant payouts as use cases (spec 1 Payouts, 4.4 Payouts, operator routes of CONTRACT.md):
// request, quote, cancel and list for a team member; approve, reject and mark sent for the operator.
import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../platform/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { NOTE_MAX, requireCapped, TX_ID_MAX } from '../../platform/text-input.ts';
import { usdRateOf, type MarketSource } from '../../market/index.ts';
import { recordAudit, type Actor } from '../../audit/index.ts';
import { formatUnits, formatUsd } from '../../money/index.ts';
import { isToken, TOKEN_DEFS, TOKENS, type TokenSymbol } from '../../tokens/index.ts';
import { MIN_PAYOUT_USD } from '../planner.ts';
import { addressById } from '../address-store.ts';
import { listBalances } from '../balance-store.ts';
import { payouts, type PayoutAddressRow, type PayoutRow } from '../schema.ts';
import { payoutJson } from '../json.ts';
import { createPayout, movePayout, PAYOUT_STATUSES, type PayoutMove } from './payout-store.ts';
import { parsePayoutAmount, payoutFigures, payoutNetworkFee } from './payout-math.ts';
import { ADJUST_NOTE_REQUIRED as NOTE_REQUIRED, TOKEN_REQUIRED } from '../adjustments.ts';
import { oneOfFilter } from '../../platform/fields.ts';
import type { OwnAddressCheck, TransferPort } from '../ports.ts';
import { callBackPayout, lockForReview, payoutSender, sendApprovedPayout } from './service-sent.ts';

export const ADDRESS_ID_REQUIRED = 'address_id is required';
export const UNKNOWN_PAYOUT_ADDRESS = 'unknown payout address: give the id of one of your live payout addresses';
export { ADJUST_NOTE_REQUIRED as NOTE_REQUIRED } from '../adjustments.ts';
export const TX_ID_REQUIRED = 'tx_id is required';
/**
 * A manual payout (and its quote) to an address that is not active yet: a new or changed address
 * is paid only from its `active_at`, 24 hours on (spec 1, payout addresses 2), as settlements,
 * scheduled and automatic payouts already wait for it.
 */
export const addressNotActive = (activeAt: Date): string =>
  `this payout address is active from ${activeAt.toISOString()}: a new or changed address can be paid out to 24 hours after it was set`;
/** 409 `addressNotActive` when the payout address is not active at `now` (merchant and referral payouts alike). */
export function refuseInactive(address: { activeAt: Date }, now: Date): void {
  if (address.activeAt.getTime() > now.getTime()) throw conflict(addressNotActive(address.activeAt));
}
/** A payout list's filters (the operator's and a merchant's alike) refuse an unknown value: 400. */
export const PAYOUT_STATUS_INVALID = `status must be one of ${PAYOUT_STATUSES.join(', ')}`;
export const PAYOUT_TOKEN_INVALID = TOKEN_REQUIRED;
export const FROM_MISMATCH = 'from_token and from_chain name different balances';
export const UNKNOWN_FROM = 'from_token must be one of your balance coins, e.g. USDT_TRC20';
/** The coin with its article as it is read aloud: an ETH, an LTC, an XRP (letter names), a BTC, a USDT_TRC20. */
const withArticle = (token: string): string => `${/^(ETH|LTC|XRP)$/.test(token) ? 'an' : 'a'} ${token}`;
export const crossBalance = (from: string, to: string): string =>
  `${withArticle(from)} balance cannot be paid to ${withArticle(to)} address: only a USDT balance can go to a USDT address on another network`;

const isUsdt = (t: string): boolean => t.startsWith('USDT_');

export class PayoutService {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #market: MarketSource;
  readonly #transfers: () => TransferPort | null;
  readonly #ownAddresses: OwnAddressCheck;

  /**
   * `ownAddresses`: refuses the service's own addresses and token contracts (a payout address stored
   * before they were refused); `transfers`: the chain room's transfer service, when there is one (it
   * sends USDT payouts on BNB Smart Chain and Ethereum).
   */
  constructor(db: Database, clock: Clock, market: MarketSource, ownAddresses: OwnAddressCheck, transfers: () => TransferPort | null = () => null) {
    this.#db = db;
    this.#clock = clock;
    this.#market = market;
    this.#ownAddresses = ownAddresses;
    this.#transfers = transfers;
  }

  /** 400 with the refusal when no payout may go to `address` (the service's own, a token contract). */
  async #refuseOwn(ex: Executor, token: string, address: string): Promise<void> {
    const refusal = await this.#ownAddresses(ex, token as TokenSymbol, address);
    if (refusal) throw badRequest(refusal);
  }

  /** The live address `id` of the merchant; with `lock`, kept from a change or deletion until `ex`'s transaction ends. */
  async #address(ex: Executor, merchantId: string, id: unknown, lock = false): Promise<PayoutAddressRow> {
    if (typeof id !== 'string' || id === '') throw badRequest(ADDRESS_ID_REQUIRED);
    const a = await addressById(ex, merchantId, id, lock);
    if (!a || !a.livemode) throw badRequest(UNKNOWN_PAYOUT_ADDRESS);
    refuseInactive(a, this.#clock.now());
    await this.#refuseOwn(ex, a.token, a.address);
    return a;
  }

  /**
   * Which balance pays: `from_token` (or `from_chain`) when given; else the address's own coin,
   * or for a USDT address whose own balance is empty, the USDT balance holding the most.
   */
  async #fromToken(ex: Executor, merchantId: string, address: PayoutAddressRow, fromToken: unknown, fromChain: unknown): Promise<TokenSymbol> {
    const to = address.token as TokenSymbol;
    let from: TokenSymbol | undefined;
    if (fromToken !== undefined && fromToken !== null) {
      if (!isToken(fromToken)) throw badRequest(UNKNOWN_FROM);
      from = fromToken;
      if (fromChain !== undefined && fromChain !== null && fromChain !== TOKEN_DEFS[from].chain) throw badRequest(FROM_MISMATCH);
    } else if (fromChain !== undefined && fromChain !== null) {
      from = TOKENS.find((t) => TOKEN_DEFS[t].chain === fromChain && (isUsdt(to) ? isUsdt(t) : t === to));
      if (!from) throw badRequest(crossBalance(`${String(fromChain)}`, to));
    } else {
      from = to;
      if (isUsdt(to)) {
        const rows = await listBalances(ex, { merchantId, livemode: true });
        const own = rows.find((b) => b.token === to);
        if (!own || own.available === 0n) {
          const best = rows.filter((b) => isUsdt(b.token) && b.available > 0n).sort((a, b) => (b.available > a.available ? 1 : -1))[0];
          if (best) from = best.token as TokenSymbol;
        }
      }
    }
    if (from !== to && !(isUsdt(from) && isUsdt(to))) throw badRequest(crossBalance(from, to));
    return from;
  }

  /**
   * The address is read in the payout's transaction and locked there (FOR SHARE): a deletion at the
   * same moment either waits for the payout and then cancels it with the other `requested` ones, or
   * goes first and the request answers `unknown payout address` (read outside, a deletion in between
   * left a payout to the deleted address). A change of its address or tag waits likewise and cancels
   * it too, or goes first and the request finds the changed address not active yet.
   */
  async request(merchantId: string, userId: string, actor: Actor, body: Record<string, unknown>): Promise<PayoutRow> {
    if (typeof body.address_id !== 'string' || body.address_id === '') throw badRequest(ADDRESS_ID_REQUIRED);
    const now = this.#clock.now();
    return this.#db.transaction(async (tx) => {
      const address = await this.#address(tx, merchantId, body.address_id, true);
      const fromToken = await this.#fromToken(tx, merchantId, address, body.from_token, body.from_chain);
      const amount = parsePayoutAmount(body.amount, fromToken);
      const row = await createPayout(tx, { merchantId, address, fromToken, amount, requestedBy: userId, market: this.#market.snapshot(true), now, ownAddresses: this.#ownAddresses });
      await recordAudit(tx, { merchantId, action: 'payout.requested', actor, subject: row.id, after: payoutJson(row), at: now });
      return row;
    });
  }

  /** Network fee and minimum for an address; with `amount`, the whole figures. Nothing is held. */
  async quote(merchantId: string, query: Record<string, unknown>): Promise<Record<string, unknown>> {
    const address = await this.#address(this.#db.orm, merchantId, query.address_id);
    const fromToken = await this.#fromToken(this.#db.orm, merchantId, address, query.from_token, query.from_chain);
    const amount = parsePayoutAmount(query.amount, fromToken);
    const market = this.#market.snapshot(true);
    const rate = usdRateOf(market, fromToken);
    const fee = payoutNetworkFee(fromToken, address.token as TokenSymbol, market[address.token as TokenSymbol].networkFeeUsd, rate);
    const { decimals } = TOKEN_DEFS[fromToken];
    const balance = (await listBalances(this.#db.orm, { merchantId, livemode: true })).find((b) => b.token === fromToken);
    const fig = payoutFigures(fromToken, amount ?? 0n, fee, rate);
    return {
      address_id: address.id, token: address.token, chain: address.chain, from_token: fromToken, from_chain: TOKEN_DEFS[fromToken].chain,
      network_fee: formatUnits(fee, decimals), network_fee_usd: formatUsd(fig.network_fee_usd), min_payout_usd: formatUsd(MIN_PAYOUT_USD),
      available: formatUnits(balance?.available ?? 0n, decimals),
      ...(amount !== undefined ? {
        amount: formatUnits(amount, decimals), send_amount: formatUnits(fig.send_amount > 0n ? fig.send_amount : 0n, decimals),
        amount_usd: formatUsd(fig.amount_usd), send_amount_usd: formatUsd(fig.send_amount_usd.gt(0) ? fig.send_amount_usd : 0), usd_rate: formatUsd(fig.usd_rate),
      } : {}),
    };
  }

  /**
   * A page of payouts, newest first. `status` and `token` are the query's values as given: absent or
   * empty lists all, an unknown (or repeated) one is refused 400 `PAYOUT_STATUS_INVALID` /
   * `PAYOUT_TOKEN_INVALID`, as /admin does (it listed every payout, as if not given).
   */
  async list(filter: { merchantId?: string; status?: unknown; token?: unknown }, limit: number, offset: number): Promise<{ payouts: PayoutRow[]; total: number }> {
    const status = oneOfFilter(filter.status, PAYOUT_STATUSES, PAYOUT_STATUS_INVALID);
    const token = oneOfFilter(filter.token, TOKENS, PAYOUT_TOKEN_INVALID);
    const conds: SQL[] = [];
    if (filter.merchantId) conds.push(eq(payouts.merchantId, filter.merchantId));
    if (status) conds.push(eq(payouts.status, status));
    if (token) conds.push(eq(payouts.token, token));
    const where = conds.length ? and(...conds) : undefined;
    const rows = await this.#db.orm.select().from(payouts).where(where).orderBy(desc(payouts.createdAt), desc(payouts.id)).limit(limit).offset(offset);
    const [{ n }] = await this.#db.orm.select({ n: count() }).from(payouts).where(where);
    return { payouts: rows, total: Number(n) };
  }

  async cancel(merchantId: string, userId: string, actor: Actor, id: string): Promise<PayoutRow> {
    return this.#move(id, merchantId, { to: 'canceled', by: userId }, actor);
  }

  /**
   * Operator moves: approve, reject {note}, sent {tx_id}; audited in the merchant's log. Approving a
   * payout the service sends itself records its transfer in the same transaction.
   */
  async review(id: string, body: Record<string, unknown>, to: 'approved' | 'rejected' | 'sent', actor: Actor): Promise<PayoutRow> {
    let move: PayoutMove = { to: 'approved' };
    if (to === 'rejected') move = { to, note: requireCapped('note', body.note, NOTE_REQUIRED, NOTE_MAX) };
    else if (to === 'sent') move = { to, txId: requireCapped('tx_id', body.tx_id, TX_ID_REQUIRED, TX_ID_MAX) };
    return this.#move(id, null, move, actor);
  }

  async #move(id: string, merchantId: string | null, move: PayoutMove, actor: Actor): Promise<PayoutRow> {
    const now = this.#clock.now();
    return this.#db.transaction(async (tx) => {
      if (move.to === 'rejected' || move.to === 'sent') {
        const { row: current, sender } = await lockForReview(tx, id, this.#transfers());
        if (current) await callBackPayout(tx, current, sender);
      }
      if (move.to === 'approved') {
        // one requested before the address was refused is never approved (its transfer recorded)
        const [current] = await tx.select().from(payouts).where(eq(payouts.id, id)).for('update');
        if (current?.status === 'requested') await this.#refuseOwn(tx, current.token, current.address);
      }
      const row = await movePayout(tx, id, merchantId, move, now);
      const sender = move.to === 'approved' ? payoutSender(row, this.#transfers()) : null;
      if (sender) await sendApprovedPayout(tx, row, sender);
      await recordAudit(tx, { merchantId: row.merchantId, action: `payout.${move.to}`, actor, subject: row.id, after: payoutJson(row), at: now });
      return row;
    });
  }
}
