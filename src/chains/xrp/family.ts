// XRP in the transfer machinery. Every XRP payment of a mode is paid to one service address, the XRP
// hot wallet, and every XRP transfer leaves from it: a direct settlement is one Payment of exactly
// `net` carrying the payout address's destination tag, and the service's fee simply stays (spec
// direct rule 7). Sequence numbers are the nonces the core allocates; each transaction is bounded
// by LastLedgerSequence, so once a validated ledger past it does not hold it, it is known lost and
// the same sequence is signed again (only one transaction of a sequence can ever be applied: nothing
// is sent twice). The account reserve is never spent. A payment the destination's own settings would
// fail (RequireDest without a tag, DepositAuth, a new account below the reserve) is refused before
// it is signed: rippled would apply it as a tec, its fee burnt, at every try. The service address carries RequireDest (one
// AccountSet, an `account_setting` transfer made once): rippled then refuses a payment to it without
// a destination tag (tecDST_TAG_NEEDED), so an untagged payment bounces back to its sender.
import type { WalletKeys } from '../wallets/keys.ts';
import type { AttemptRow, TransferRow } from '../transfers/schema.ts';
import type { BroadcastOutcome, Inclusion, PrepareContext, Preparation, SignedTx, TransferFamily } from '../transfers/types.ts';
import { broadcastVia } from '../transfers/broadcasting.ts';
import { XrpNodeError, type XrpRpc } from './rpc.ts';
import { ASF_REQUIRE_DEST, lastLedgerOf, signAccountSet, signPayment } from './sign.ts';

/** Ledgers a transaction may wait for (about 80 s at 4 s a ledger), as xrpl.js's autofill allows. */
export const LEDGER_WINDOW = 20;
/** A replacement's fee is at least this percent of the last. */
export const XRP_BUMP_PERCENT = 125n;

const drops = (v: unknown, what: string): bigint => {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !/^\d{1,20}$/.test(s)) throw new Error(`rippled answered ${what} that is not a drop amount`);
  return BigInt(s);
};

interface AccountState { balance: bigint; ownerCount: bigint; sequence: bigint; flags: number }

/** AccountRoot flags a payment to the account must respect (rippled: tecDST_TAG_NEEDED, tecNO_PERMISSION). */
const LSF_REQUIRE_DEST_TAG = 0x00020000;
const LSF_DEPOSIT_AUTH = 0x01000000;

/** What a node answers to `submit`, as the transfer core sees it. */
export function submitOutcome(engine: string, message: string): BroadcastOutcome {
  const why = `rippled refused it: ${engine} ${message}`.trim();
  // applied to the open ledger (tec: applied, its fee and sequence spent, the payment failed; inclusion tells)
  if (engine === 'tesSUCCESS' || engine === 'terQUEUED' || engine.startsWith('tec')) return { kind: 'accepted' };
  if (engine === 'tefPAST_SEQ' || engine === 'tefALREADY') return { kind: 'nonce_used', why };
  if (engine === 'terINSUF_FEE_B' || engine === 'tecUNFUNDED_PAYMENT') return { kind: 'no_funds', why };
  // a prior sequence is missing, or the node is busy: it may still be applied later
  if (engine.startsWith('ter') || engine === 'telCAN_NOT_QUEUE') return { kind: 'uncertain', why };
  return { kind: 'refused', why };
}

/** The reference of the service address's RequireDest setting. */
export const requireDestReference = (address: string): string => `xrp_require_dest:${address}`;

export class XrpFamily implements TransferFamily {
  readonly chain = 'xrp' as const;
  readonly usesNonces = true;
  readonly stuckAfterMs: number;
  readonly #rpc: XrpRpc;
  readonly #keys: WalletKeys;

  constructor(rpc: XrpRpc, keys: WalletKeys, opts: { stuckAfterMs?: number } = {}) {
    this.#rpc = rpc;
    this.#keys = keys;
    this.stuckAfterMs = opts.stuckAfterMs ?? 30_000;
  }

  hotAddress(livemode: boolean): string {
    return this.#keys.hotAddress('xrp', livemode);
  }

  async tip(): Promise<bigint> {
    const r = await this.#rpc.request('ledger', { ledger_index: 'validated' });
    const l = r.ledger as Record<string, unknown> | undefined;
    const index = Number(l?.ledger_index ?? r.ledger_index);
    if (r.validated !== true || !Number.isSafeInteger(index)) throw new Error('rippled has no validated ledger');
    return BigInt(index);
  }

  /** The account's state in a ledger ('current': what the open ledger applied); null: the account does not exist. */
  async #account(address: string, ledger: number | 'current' | 'validated' = 'current'): Promise<AccountState | null> {
    try {
      const r = await this.#rpc.request('account_info', { account: address, ledger_index: ledger });
      const a = r.account_data as Record<string, unknown> | undefined;
      if (!a) throw new Error('rippled answered account_info without account_data');
      return {
        balance: drops(a.Balance, 'a balance'), ownerCount: BigInt(Number(a.OwnerCount ?? 0)), sequence: BigInt(Number(a.Sequence)), flags: Number(a.Flags ?? 0),
      };
    } catch (err) {
      if (err instanceof XrpNodeError && err.error === 'actNotFound') return null;
      throw err;
    }
  }

  /** The next sequence of the account ('current' ledger), or as of validated ledger `at`. */
  async chainNonce(address: string, at?: bigint): Promise<bigint> {
    return (await this.#account(address, at === undefined ? 'current' : Number(at)))?.sequence ?? 0n;
  }

  /** The reserve (base, per owned object) and the fee the open ledger asks, in drops. */
  async #network(): Promise<{ reserveBase: bigint; reserveInc: bigint; fee: bigint; validated: number }> {
    const [state, fee] = await Promise.all([this.#rpc.request('server_state'), this.#rpc.request('fee')]);
    const v = (state.state as Record<string, unknown> | undefined)?.validated_ledger as Record<string, unknown> | undefined;
    const f = fee.drops as Record<string, unknown> | undefined;
    if (!v || !f) throw new Error('rippled answered server_state or fee without its figures');
    const base = drops(f.base_fee, 'a base fee');
    const open = drops(f.open_ledger_fee, 'an open ledger fee');
    return {
      reserveBase: drops(v.reserve_base, 'a reserve'), reserveInc: drops(v.reserve_inc, 'a reserve'),
      fee: open > base ? open : base, validated: Number(v.seq),
    };
  }

  #key(t: TransferRow): Uint8Array | null {
    // XRP sends only from the service address (the hot wallet), whatever the transfer calls its sender
    return this.#keys.hotAddress('xrp', t.livemode) === t.fromAddress ? this.#keys.hotPrivateKey('xrp', t.livemode) : null;
  }

  /** RequireDest on the service address (the setting's reference names the address). */
  accountSettings(livemode: boolean): readonly string[] {
    return [requireDestReference(this.hotAddress(livemode))];
  }

  async prepare(t: TransferRow, _ctx: PrepareContext): Promise<Preparation> {
    const key = this.#key(t);
    // Every refusal here is permanent: the transfer's own fields, the keys the service runs with, or
    // the destination's standing settings (which its owner, not a wait, changes). Tried again, each
    // would be refused four more times over 42 minutes before the merchant is told. Only the service
    // address's own funds (its reserve included) are waited for.
    if (!key) return { kind: 'refused', why: 'XRP is sent only from the service address', permanent: true };
    if (t.purpose === 'account_setting') return this.#prepareSetting(t, key);
    if (t.token !== 'XRP') return { kind: 'refused', why: `${t.token} is not sent on the XRP Ledger`, permanent: true };
    if (t.toAddress === t.fromAddress) return { kind: 'refused', why: 'the payout address is the service address', permanent: true };
    const [net, from, to] = await Promise.all([this.#network(), this.#account(t.fromAddress), this.#account(t.toAddress, 'validated')]);
    if (!to && t.amount < net.reserveBase) {
      // tecNO_DST_INSUF_XRP
      return { kind: 'refused', why: `the destination account does not exist and ${t.amount} drops are below the ${net.reserveBase} drops it needs to be created`, permanent: true };
    }
    const closed = to ? await this.#closedTo(t, to, net.reserveBase) : null;
    if (closed) return { kind: 'refused', why: closed, permanent: true };
    const reserve = net.reserveBase + (from?.ownerCount ?? 0n) * net.reserveInc;
    const spendable = (from?.balance ?? 0n) - reserve - net.fee;
    if (spendable < t.amount) {
      return { kind: 'no_funds', why: `the service address holds ${from?.balance ?? 0n} drops (${reserve} of them its reserve); ${t.amount + net.fee} are needed` };
    }
    return { kind: 'ready', sign: async (nonce) => this.#sign(t, key, nonce!, net.fee, await this.#lastLedger(net.validated)) };
  }

  /**
   * Why rippled would apply the payment as a tec (its fee burnt, its sequence used, nothing
   * delivered) for the destination's own settings, read before anything is signed; null: it may be
   * paid. RequireDest without a tag is tecDST_TAG_NEEDED. DepositAuth is tecNO_PERMISSION unless the
   * service address is preauthorized (rippled's deposit_authorized answers that) or both the payment
   * and the account's balance are at most the base reserve (rippled lets that through so an account
   * can never be stuck below it).
   */
  async #closedTo(t: TransferRow, to: AccountState, reserveBase: bigint): Promise<string | null> {
    if ((to.flags & LSF_REQUIRE_DEST_TAG) !== 0 && t.toTag === null) {
      return 'the destination account requires a destination tag (RequireDest) and the payout address has none';
    }
    if ((to.flags & LSF_DEPOSIT_AUTH) === 0 || (t.amount <= reserveBase && to.balance <= reserveBase)) return null;
    const r = await this.#rpc.request('deposit_authorized', { source_account: t.fromAddress, destination_account: t.toAddress, ledger_index: 'validated' });
    if (r.deposit_authorized === true) return null;
    return 'the destination account accepts payments only from senders it has preauthorized (DepositAuth), and the service address is not one of them';
  }

  /** The AccountSet once the service address exists and can pay its fee above its reserve. */
  async #prepareSetting(t: TransferRow, key: Uint8Array): Promise<Preparation> {
    if (t.reference !== requireDestReference(t.fromAddress)) return { kind: 'refused', why: `unknown account setting ${t.reference}`, permanent: true };
    const [net, from] = await Promise.all([this.#network(), this.#account(t.fromAddress)]);
    const reserve = net.reserveBase + (from?.ownerCount ?? 0n) * net.reserveInc;
    if (!from || from.balance - reserve < net.fee) {
      return { kind: 'no_funds', why: `the service address holds ${from?.balance ?? 0n} drops (${reserve} of them its reserve); ${net.fee} are needed for its AccountSet` };
    }
    return { kind: 'ready', sign: async (nonce) => this.#sign(t, key, nonce!, net.fee, await this.#lastLedger(net.validated)) };
  }

  /** The validated ledger right now plus the window (read at signing: the sender's lock may have waited). */
  async #lastLedger(fallback: number): Promise<number> {
    const tip = await this.tip().catch(() => BigInt(fallback));
    return Number(tip) + LEDGER_WINDOW;
  }

  #sign(t: TransferRow, key: Uint8Array, sequence: bigint, fee: bigint, lastLedgerSequence: number): SignedTx {
    const { txId, blob } = t.purpose === 'account_setting'
      ? signAccountSet({ account: t.fromAddress, setFlag: ASF_REQUIRE_DEST, fee, sequence: Number(sequence), lastLedgerSequence }, key)
      : signPayment({
        account: t.fromAddress, destination: t.toAddress, ...(t.toTag !== null ? { tag: t.toTag } : {}), amount: t.amount, fee,
        sequence: Number(sequence), lastLedgerSequence,
      }, key);
    return { txId, raw: blob, nonce: sequence, value: t.amount, fee: { fee: fee.toString(), lastLedgerSequence: String(lastLedgerSequence) }, feeReserve: fee };
  }

  /** Past its LastLedgerSequence in a validated ledger (and not in one: the core looked): it can never be applied. */
  expired(last: AttemptRow, tip: bigint): boolean {
    const lls = lastLedgerOf(last.raw);
    return lls !== null && tip > BigInt(lls);
  }

  /** The same sequence signed again with a fresh LastLedgerSequence and a higher fee. */
  async replace(t: TransferRow, last: AttemptRow, _ctx: PrepareContext): Promise<SignedTx | null> {
    const key = this.#key(t);
    if (!key || last.nonce === null) return null;
    const net = await this.#network();
    const lastFee = BigInt(last.fee.fee ?? '0');
    const bumped = (lastFee * XRP_BUMP_PERCENT + 99n) / 100n;
    const fee = bumped > net.fee ? bumped : net.fee;
    const from = await this.#account(t.fromAddress);
    if (!from || from.balance - net.reserveBase - from.ownerCount * net.reserveInc - fee < t.amount) return null;
    return this.#sign(t, key, last.nonce, fee, net.validated + LEDGER_WINDOW);
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    return broadcastVia('rippled', async (failures) => {
      const r = await this.#rpc.request('submit', { tx_blob: raw }, failures);
      if (typeof r.engine_result !== 'string') return { kind: 'uncertain', why: 'rippled answered submit without an engine result' };
      return submitOutcome(r.engine_result, String(r.engine_result_message ?? ''));
    });
  }

  async inclusion(txIds: readonly string[]): Promise<Inclusion | null> {
    for (const txId of txIds) {
      try {
        const r = await this.#rpc.request('tx', { transaction: txId });
        if (r.validated !== true || typeof r.ledger_index !== 'number') continue;
        const meta = r.meta as Record<string, unknown> | undefined;
        const tx = (r.tx_json ?? r) as Record<string, unknown>;
        const result = meta?.TransactionResult;
        const ok = result === 'tesSUCCESS';
        return { txId, block: BigInt(r.ledger_index), ok, feePaid: drops(tx.Fee, 'a fee'), ...(!ok && typeof result === 'string' ? { failure: result } : {}) };
      } catch (err) {
        if (err instanceof XrpNodeError && err.error === 'txnNotFound') continue;
        throw err;
      }
    }
    return null;
  }

  async known(txId: string): Promise<boolean> {
    try {
      await this.#rpc.request('tx', { transaction: txId });
      return true;
    } catch (err) {
      if (err instanceof XrpNodeError && err.error === 'txnNotFound') return false;
      throw err;
    }
  }

  /** What a settlement costs now, in drops (the market's network fee quote): one Payment from the service address (rule 7). */
  async quoteSweepFee(): Promise<bigint> {
    return (await this.#network()).fee;
  }

  /** The service address's balance (hot wallet balances in /admin/wallets). */
  async balance(address: string): Promise<bigint> {
    return (await this.#account(address, 'validated'))?.balance ?? 0n;
  }
}
