// Payout addresses per mode: add, change, make default, delete (spec 4.4 Payout addresses, direct
// rules 1-3). Every change is audited (`payout_address.updated`), told to the dashboard
// (`payout_address:update`) and to the team (a `notification`), and makes settlements waiting for
// that coin's address plan again. Deleting an address, or changing its address or tag, cancels the
// payouts still requested to it.
import { and, asc, eq, isNull, isNotNull, ne, sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import { newId } from '../platform/ids.ts';
import { forbidden, notFound, badRequest } from '../platform/errors.ts';
import { appendEvent } from '../events/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { raiseNotification } from '../notifications/index.ts';
import { users } from '../accounts/schema.ts';
import { verifyPassword } from '../accounts/passwords.ts';
import { UNLIMITED as UNLIMITED_RECHECK, type Recheck } from '../accounts/recheck-limit.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import {
  activeAt, parseAddress, parseLabel, parseTag, parseToken, DEFAULT_ONLY_TRUE, NOTHING_TO_UPDATE, PASSWORD_INCORRECT,
} from './address-rules.ts';
import { payoutAddresses, payouts, settlements, type PayoutAddressRow } from './schema.ts';
import { payoutAddressJson, payoutJson } from './json.ts';
import { movePayout } from './payouts/payout-store.ts';
import type { AddressRetiredPort, AddressRetirement, OwnAddressCheck } from './ports.ts';

export interface AddressActor {
  merchantId: string;
  userId: string;
  actor: Actor;
  /**
   * The member's limit of wrong passwords around each password re-check (429 once over it): only
   * the re-check, so a label or default change, or a body refused before its password, never meets it.
   */
  recheck?: Recheck;
}

const inForce = (merchantId: string, livemode: boolean) =>
  and(eq(payoutAddresses.merchantId, merchantId), eq(payoutAddresses.livemode, livemode), isNull(payoutAddresses.deletedAt));

export class PayoutAddressService {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #ownAddresses: OwnAddressCheck;
  readonly #onChange: (merchantId: string) => void;
  #onRetire: AddressRetiredPort | null = null;

  /**
   * `ownAddresses`: refuses the service's own addresses and token contracts; `onChange`: told of each
   * change, before and after its commit (the pricing cache forgets the merchant's list).
   */
  constructor(db: Database, clock: Clock, ownAddresses: OwnAddressCheck, onChange: (merchantId: string) => void = () => {}) {
    this.#db = db;
    this.#clock = clock;
    this.#ownAddresses = ownAddresses;
    this.#onChange = onChange;
  }

  /**
   * The referral program plugs in here: told of each deletion, and each change of address or tag,
   * in its transaction (ports.ts AddressRetiredPort).
   */
  useRetiredPort(port: AddressRetiredPort | null): void {
    this.#onRetire = port;
  }

  /** 400 when money sent to `address` would stay in the gateway or be lost in a token contract. */
  async #checkNotOwn(token: TokenSymbol, address: string, ex: Executor = this.#db.orm): Promise<void> {
    const refusal = await this.#ownAddresses(ex, token, address);
    if (refusal) throw badRequest(refusal);
  }

  async #changing<T>(merchantId: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      this.#onChange(merchantId);
    }
  }

  async list(merchantId: string, livemode: boolean): Promise<PayoutAddressRow[]> {
    return this.#db.orm.select().from(payoutAddresses).where(inForce(merchantId, livemode))
      .orderBy(asc(payoutAddresses.token), asc(payoutAddresses.createdAt), asc(payoutAddresses.id));
  }

  async add(who: AddressActor, livemode: boolean, body: Record<string, unknown>): Promise<PayoutAddressRow> {
    const token = parseToken(body.token, livemode);
    const address = parseAddress(token, body.address, livemode);
    const tag = parseTag(token, body.tag);
    const label = parseLabel(body.label) ?? '';
    await this.#checkNotOwn(token, address);
    await this.#checkPassword(who, body.password);
    const now = this.#clock.now();
    return this.#changing(who.merchantId, () => this.#db.transaction(async (tx) => {
      await lockCoin(tx, who.merchantId, livemode, token);
      const same = await tx.select().from(payoutAddresses).where(and(
        eq(payoutAddresses.merchantId, who.merchantId), eq(payoutAddresses.livemode, livemode), eq(payoutAddresses.token, token)));
      const others = same.filter((a) => a.deletedAt === null);
      const row: PayoutAddressRow = {
        id: newId('pa', now), merchantId: who.merchantId, livemode, token, chain: TOKEN_DEFS[token].chain, address,
        tag: tag ?? null, label, isDefault: others.length === 0,
        activeAt: activeAt({ livemode, now, otherInForce: others.length > 0, deletedBefore: same.length > others.length, changed: false }),
        createdBy: who.userId, createdAt: now, updatedAt: now, deletedAt: null,
      };
      await tx.insert(payoutAddresses).values(row);
      await this.#changed(tx, who, null, row, 'added', now);
      return row;
    }));
  }

  async update(who: AddressActor, id: string, body: Record<string, unknown>): Promise<PayoutAddressRow> {
    const current = await this.#find(this.#db.orm, who.merchantId, id);
    const token = current.token as TokenSymbol;
    const address = body.address === undefined ? undefined : parseAddress(token, body.address, current.livemode);
    const tag = parseTag(token, body.tag);
    const label = parseLabel(body.label);
    if (body.default !== undefined && body.default !== true) throw badRequest(DEFAULT_ONLY_TRUE);
    if (address === undefined && tag === undefined && label === undefined && body.default === undefined) throw badRequest(NOTHING_TO_UPDATE);
    const movesFrom = (row: PayoutAddressRow) => (address !== undefined && address !== row.address) || (tag !== undefined && tag !== row.tag);
    if (address !== undefined && address !== current.address) await this.#checkNotOwn(token, address);
    // a move needs the password: judged here against the row as read, so its check (scrypt, slow) is
    // made outside the lock, and again below against the row under the lock
    const checked = movesFrom(current);
    if (checked) await this.#checkPassword(who, body.password);
    const now = this.#clock.now();
    return this.#changing(who.merchantId, () => this.#db.transaction(async (tx) => {
      await lockCoin(tx, who.merchantId, current.livemode, token);
      const before = await this.#find(tx, who.merchantId, id);
      // judged again against the row under the lock: another change may have committed since it was read
      // (moved elsewhere, this PATCH would move it back), and that is a move like any other; only in
      // that race is the password checked here. A label or default alone never costs a check.
      const moves = movesFrom(before);
      if (address !== undefined && address !== before.address && address === current.address) await this.#checkNotOwn(token, address, tx);
      if (moves && !checked) await this.#checkPassword(who, body.password);
      // a PATCH that changes nothing (the same label, address or tag, or default again) is answered
      // as it is: no write, no audit entry, no "Payout address changed" for the team
      const unchanged = (address === undefined || address === before.address) && (tag === undefined || tag === before.tag)
        && (label === undefined || label === before.label) && (body.default !== true || before.isDefault);
      if (unchanged) return before;
      const next: PayoutAddressRow = {
        ...before, address: address ?? before.address, tag: tag === undefined ? before.tag : tag, label: label ?? before.label,
        isDefault: body.default === true ? true : before.isDefault, updatedAt: now,
        activeAt: moves ? activeAt({ livemode: before.livemode, now, otherInForce: false, deletedBefore: false, changed: true }) : before.activeAt,
      };
      const write = async () => {
        if (body.default === true && !before.isDefault) {
          const undefaulted = await tx.update(payoutAddresses).set({ isDefault: false, updatedAt: now })
            .where(and(inForce(who.merchantId, before.livemode), eq(payoutAddresses.token, token), ne(payoutAddresses.id, id), eq(payoutAddresses.isDefault, true)))
            .returning();
          await defaultMoved(tx, who.merchantId, undefaulted, now);
        }
        await tx.update(payoutAddresses).set({
          address: next.address, tag: next.tag, label: next.label, isDefault: next.isDefault, activeAt: next.activeAt, updatedAt: now,
        }).where(eq(payoutAddresses.id, id));
        await this.#changed(tx, who, before, next, 'changed', now);
      };
      // the payouts keep the address they were asked for: moved (against the row as it is now, under
      // the lock), those still requested would go to the one just replaced. A label or default does not.
      if (moves) await this.#retiring(tx, who, before, 'changed', now, write);
      else await write();
      return next;
    }));
  }

  async remove(who: AddressActor, id: string): Promise<void> {
    const current = await this.#find(this.#db.orm, who.merchantId, id);
    const now = this.#clock.now();
    await this.#changing(who.merchantId, () => this.#db.transaction(async (tx) => {
      await lockCoin(tx, who.merchantId, current.livemode, current.token);
      const before = await this.#find(tx, who.merchantId, id);
      await this.#retiring(tx, who, before, 'deleted', now, async () => {
        await tx.update(payoutAddresses).set({ deletedAt: now, isDefault: false, updatedAt: now }).where(eq(payoutAddresses.id, id));
        if (before.isDefault) {
          // rule 1: a coin keeps a default while it has addresses; the oldest one left takes over
          const [oldest] = await tx.select().from(payoutAddresses)
            .where(and(inForce(who.merchantId, before.livemode), eq(payoutAddresses.token, before.token)))
            .orderBy(asc(payoutAddresses.createdAt), asc(payoutAddresses.id)).limit(1);
          if (oldest) {
            const promoted = await tx.update(payoutAddresses).set({ isDefault: true, updatedAt: now }).where(eq(payoutAddresses.id, oldest.id)).returning();
            await defaultMoved(tx, who.merchantId, promoted, now);
          }
        }
        await this.#changed(tx, who, before, null, 'deleted', now);
      });
    }));
  }

  /**
   * Retires `before` (deleted, or moved to another address or tag) around `write`, the change of its
   * row, in `tx`: the payouts still requested to it are canceled, merchant and referral ones alike.
   * The referral program goes first, locking its balance before the row changes as its payout request
   * does; the merchant payouts after the row is written, whose lock a payout request reading the
   * address (FOR SHARE) waits for, or holds until it commits and is seen here.
   */
  async #retiring(tx: Executor, who: AddressActor, before: PayoutAddressRow, reason: AddressRetirement, now: Date, write: () => Promise<void>): Promise<void> {
    if (this.#onRetire) await this.#onRetire(tx, before, who, reason, now);
    await write();
    await cancelPayoutsTo(tx, who, before.id, reason, now);
  }

  async #find(ex: Executor, merchantId: string, id: string): Promise<PayoutAddressRow> {
    const [row] = await ex.select().from(payoutAddresses)
      .where(and(eq(payoutAddresses.id, id), eq(payoutAddresses.merchantId, merchantId), isNull(payoutAddresses.deletedAt)));
    if (!row) throw notFound();
    return row;
  }

  async #checkPassword(who: AddressActor, password: unknown): Promise<void> {
    await (who.recheck ?? UNLIMITED_RECHECK)(() => this.#verify(who.userId, password));
  }

  async #verify(userId: string, password: unknown): Promise<void> {
    const [user] = await this.#db.orm.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
    const ok = typeof password === 'string' && password.length > 0 && user !== undefined && await verifyPassword(password, user.hash);
    if (!ok) throw forbidden(PASSWORD_INCORRECT);
  }

  async #changed(tx: Executor, who: AddressActor, before: PayoutAddressRow | null, after: PayoutAddressRow | null, verb: string, now: Date): Promise<void> {
    const row = (after ?? before)!;
    this.#onChange(who.merchantId);
    await recordAudit(tx, {
      merchantId: who.merchantId, action: 'payout_address.updated', actor: who.actor, subject: row.id,
      before: before ? payoutAddressJson(before) : undefined, after: after ? payoutAddressJson(after) : undefined, note: verb, at: now,
    });
    await tellDashboard(tx, who.merchantId, row, after === null, now);
    await raiseNotification(tx, {
      merchantId: who.merchantId, category: 'payouts', livemode: row.livemode, title: `Payout address ${verb}`,
      body: notificationText(row, verb, after), subject: row.id, at: now,
    });
    // settlements waiting for this coin's address plan again: a new wait, or settled without it
    await tx.update(settlements).set({ replanAt: now })
      .where(and(eq(settlements.merchantId, who.merchantId), eq(settlements.livemode, row.livemode), eq(settlements.token, row.token),
        eq(settlements.status, 'pending'), isNotNull(settlements.awaitsUntil)));
  }
}

function notificationText(row: PayoutAddressRow, verb: string, after: PayoutAddressRow | null): string {
  const mode = row.livemode ? 'live' : 'test';
  const when = after && after.activeAt.getTime() > after.updatedAt.getTime() ? `; settlements use it from ${after.activeAt.toISOString()}` : '';
  return `The ${mode} ${row.token} payout address ${row.address} was ${verb}${when}.`;
}

/**
 * The dashboard's payout_address:update of an address whose `default` moved with another's change
 * (the old default of a switch, the heir of a deleted default): without it an open dashboard shows
 * two defaults, or none. Only the event: the member changed the other address, which is what the
 * audit log and the team's notification name.
 */
async function defaultMoved(tx: Executor, merchantId: string, rows: readonly PayoutAddressRow[], now: Date): Promise<void> {
  for (const row of rows) await tellDashboard(tx, merchantId, row, false, now);
}

/** The dashboard socket's `payout_address:update` {address, deleted}. */
async function tellDashboard(tx: Executor, merchantId: string, row: PayoutAddressRow, deleted: boolean, now: Date): Promise<void> {
  await appendEvent(tx, { type: 'payout_address:update', livemode: row.livemode, merchantId, data: { address: payoutAddressJson(row), deleted }, at: now });
}

/** Serialises changes to one coin's addresses (first-is-default and rule 2 read the others). */
async function lockCoin(tx: Executor, merchantId: string, livemode: boolean, token: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`pa:${merchantId}:${livemode}:${token}`}))`);
}

/**
 * Payouts to a deleted or changed address still waiting for review are canceled with it (their
 * amounts back in the balance), by the member who did it: a merchant removes or replaces an address
 * they no longer trust or hold (a payout keeps the address string it was asked for), and the
 * operator must never approve a payout there. An approved one may already be on its way: it goes on
 * (the operator can still reject it while it has not left).
 */
async function cancelPayoutsTo(tx: Executor, who: AddressActor, addressId: string, reason: AddressRetirement, now: Date): Promise<void> {
  const waiting = await tx.select({ id: payouts.id }).from(payouts)
    .where(and(eq(payouts.merchantId, who.merchantId), eq(payouts.addressId, addressId), eq(payouts.status, 'requested'))).for('update');
  for (const { id } of waiting) {
    const row = await movePayout(tx, id, who.merchantId, { to: 'canceled', by: who.userId }, now);
    await recordAudit(tx, { merchantId: who.merchantId, action: 'payout.canceled', actor: who.actor, subject: row.id, after: payoutJson(row), note: `its payout address was ${reason}`, at: now });
  }
}
