// Recording transfers: each one is a row written in the caller's transaction (the settlement, the
// payout approval, the top-up's request), before anything is signed. The worker signs and
// broadcasts after the commit. The TransferPort the settlement room uses is built on it.
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Chain } from '../../config.ts';
import type { Executor } from '../../platform/db/index.ts';
import { newId } from '../../platform/ids.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../tokens/index.ts';
import { payments } from '../../payments/index.ts';
import type { TransferPort, TransferRequest, TransferState } from '../../settlement/index.ts';
import type { WalletKeys } from '../wallets/keys.ts';
import { outgoingTransfers, type TransferRow } from './schema.ts';
import { transferById } from './store.ts';
import { MAY_WAIT_FOR_FUNDS, WAITING_FUNDS, type TransferPurpose } from './types.ts';

export interface NewTransfer {
  chain: Chain;
  livemode: boolean;
  purpose: TransferPurpose;
  token: TokenSymbol;
  fromAddress: string;
  /** Index of the deposit address; null for the hot wallet, or a deposit address this service did not derive. */
  fromIndex: number | null;
  fromRole: 'deposit' | 'hot';
  toAddress: string;
  toTag?: number;
  amount: bigint;
  reference: string;
  dependsOn?: string;
}

/**
 * A native coin leaving a deposit address for the service pays the network out of itself (the
 * service's share, a sweep), as does the hot wallet paying itself (a consolidation: one output of
 * what it spends less the fee); everything else arrives exactly and its fee is paid separately.
 */
export const paysOwnFee = (t: Pick<NewTransfer, 'token' | 'purpose' | 'fromRole'>): boolean =>
  TOKEN_DEFS[t.token].native && (t.fromRole === 'deposit' ? t.purpose === 'service_fee' || t.purpose === 'sweep' : t.purpose === 'consolidation');

/** The row of a new intent: recorded, nothing signed or sent yet. */
function intentRow(t: NewTransfer, now: Date): typeof outgoingTransfers.$inferInsert {
  return {
    id: newId('trf', now), chain: t.chain, livemode: t.livemode, purpose: t.purpose, token: t.token,
    fromAddress: t.fromAddress, fromRole: t.fromRole, fromIndex: t.fromIndex, toAddress: t.toAddress, toTag: t.toTag ?? null,
    amount: t.amount, paysOwnFee: paysOwnFee(t), reference: t.reference, dependsOn: t.dependsOn ?? null,
    status: 'recorded', waiting: null, nonce: null, uncertain: false, txId: null, block: null, sentAmount: null,
    feesPaid: 0n, minedFee: null, failures: 0, replacements: 0, nextAt: now, lastError: null, createdAt: now, updatedAt: now, finalAt: null,
  };
}

export async function recordTransfer(tx: Executor, t: NewTransfer, now: Date): Promise<TransferRow> {
  const [row] = await tx.insert(outgoingTransfers).values(intentRow(t, now)).returning();
  return row;
}

/**
 * The hot wallet's `account_setting` transfer of `reference`, recorded unless it was already (ever):
 * each setting is made once, whatever the number of processes or restarts (a unique index).
 * A transaction of the hot wallet to itself, moving nothing.
 */
export async function recordAccountSetting(ex: Executor, t: Pick<NewTransfer, 'chain' | 'livemode' | 'token' | 'fromAddress' | 'reference'>, now: Date): Promise<boolean> {
  const setting: NewTransfer = { ...t, purpose: 'account_setting', fromRole: 'hot', fromIndex: null, toAddress: t.fromAddress, amount: 0n };
  const rows = await ex.insert(outgoingTransfers).values(intentRow(setting, now)).onConflictDoNothing().returning({ id: outgoingTransfers.id });
  return rows.length > 0;
}

/** The TransferPort of the settlement room: settlements, the service's share, sweeps and payouts. */
export class ChainTransferPort implements TransferPort {
  readonly #keys: WalletKeys;
  readonly #chains: () => ReadonlySet<Chain>;
  readonly #now: () => Date;
  readonly #recorded: () => void;

  /** `chains`: the chains a family can send on now; `recorded`: told of every new intent (wakes the worker after commit). */
  constructor(keys: WalletKeys, chains: () => ReadonlySet<Chain>, now: () => Date, recorded: () => void) {
    this.#keys = keys;
    this.#chains = chains;
    this.#now = now;
    this.#recorded = recorded;
  }

  supports(chain: Chain): boolean {
    return this.#chains().has(chain);
  }

  async send(tx: Executor, req: TransferRequest): Promise<string> {
    const from = req.from ? await depositSender(tx, req.chain, req.from) : null;
    const livemode = from?.livemode ?? true;
    const hot = this.#keys.hotAddress(req.chain, livemode);
    // XRP deposits are paid to the service address, which is the hot wallet: they leave it as the hot wallet
    const fromHot = !req.from || req.from === hot;
    const row = await recordTransfer(tx, {
      chain: req.chain, livemode, purpose: req.purpose ?? (req.to ? 'settlement' : 'service_fee'), token: req.token,
      fromAddress: req.from ?? hot, fromIndex: fromHot ? null : from?.index ?? null,
      fromRole: fromHot ? 'hot' : 'deposit', toAddress: req.to ?? hot,
      ...(req.tag !== undefined ? { toTag: req.tag } : {}), amount: req.amount, reference: req.reference,
    }, this.#now());
    this.#recorded();
    return row.id;
  }

  async retry(tx: Executor, reference: string): Promise<number> {
    const now = this.#now();
    const rows = await tx.update(outgoingTransfers)
      .set({ status: 'recorded', failures: 0, nonce: null, waiting: null, lastError: null, nextAt: now, updatedAt: now })
      .where(and(eq(outgoingTransfers.reference, reference), eq(outgoingTransfers.status, 'failed'))).returning({ id: outgoingTransfers.id });
    if (rows.length > 0) this.#recorded();
    return rows.length;
  }

  async state(tx: Executor, id: string): Promise<TransferState | null> {
    const [r] = await tx.select().from(outgoingTransfers).where(eq(outgoingTransfers.id, id));
    if (!r) return null;
    const status = r.status === 'final' ? 'final' : r.status === 'failed' || r.status === 'canceled' ? 'failed' : 'pending';
    return {
      status, waiting_funds: (MAY_WAIT_FOR_FUNDS as readonly string[]).includes(r.status) && r.waiting === WAITING_FUNDS,
      ...(r.txId ? { tx_id: r.txId } : {}), ...(r.lastError ? { why: r.lastError } : {}),
    };
  }

  async lock(tx: Executor, id: string): Promise<void> {
    await transferById(tx, id, true);
  }

  async lockReference(tx: Executor, reference: string): Promise<void> {
    // in the order of their ids: two transactions locking the same reference's rows never cross
    await tx.select({ id: outgoingTransfers.id }).from(outgoingTransfers).where(eq(outgoingTransfers.reference, reference))
      .orderBy(asc(outgoingTransfers.id)).for('update');
  }

  async cancel(tx: Executor, reference: string, only?: string): Promise<boolean> {
    // locked: the worker signs a transfer only under this lock and only while it is still `recorded`
    const rows = await tx.select({ id: outgoingTransfers.id, status: outgoingTransfers.status }).from(outgoingTransfers)
      .where(and(eq(outgoingTransfers.reference, reference), only === undefined ? undefined : eq(outgoingTransfers.id, only))).for('update');
    if (only !== undefined && rows.length === 0) return false;
    // A transfer with a signed transaction may be on a node already: it can no longer be called back.
    if (rows.some((r) => r.status !== 'recorded' && r.status !== 'canceled' && r.status !== 'failed')) return false;
    const open = rows.filter((r) => r.status === 'recorded').map((r) => r.id);
    if (open.length > 0) {
      await tx.update(outgoingTransfers).set({ status: 'canceled', lastError: 'canceled', updatedAt: this.#now() }).where(inArray(outgoingTransfers.id, open));
    }
    return true;
  }
}

/** The payment a deposit address was made for: its derivation index and mode. */
async function depositSender(tx: Executor, chain: Chain, address: string): Promise<{ index: number | null; livemode: boolean } | null> {
  const [p] = await tx.select({ index: payments.addressIndex, livemode: payments.livemode }).from(payments)
    .where(and(eq(payments.depositAddress, address), eq(payments.chain, chain))).orderBy(desc(payments.createdAt)).limit(1);
  return p ? { index: p.index, livemode: p.livemode } : null;
}
