// Tron in the transfer machinery: TRX transfers and TRC-20 `transfer` calls, built and signed
// locally (secp256k1; the id is the SHA-256 of raw_data) and broadcast. Tron has no nonces: a
// transaction is bounded by its expiration, so once a block's time passes it and no block holds it,
// it never will be, and only then is it built again (never while the last one may still be mined).
// A TRC-20 transfer burns TRX for energy and bandwidth: a deposit address without that much TRX
// asks the hot wallet for a top-up first; what was burnt is read back from the transaction info.
import { TOKEN_DEFS, type TokenSymbol } from '../../tokens/index.ts';
import { broadcastVia } from '../transfers/broadcasting.ts';
import type { WalletKeys } from '../wallets/keys.ts';
import type { Executor } from '../../platform/db/index.ts';
import type { AttemptRow, TransferRow } from '../transfers/schema.ts';
import type { BroadcastOutcome, Inclusion, PrepareContext, Preparation, SignedTx, TransferFamily } from '../transfers/types.ts';
import { buildSigned, transferCallData, type RefBlock, type TronCall, type TronSignedTx } from './build.ts';
import { tronBlockRef, tronFailure } from './reader.ts';
import { hexText, tronHex, type TronRpc } from './rpc.ts';
import { memoryTimestamps, type TronTimestamps } from './timestamps.ts';

/**
 * How long a transaction may wait for a block, from the head block's time (java-tron refuses an
 * expiration at or before the head block's time, or more than a day after it; 2 minutes is 40 blocks).
 */
export const EXPIRATION_MS = 120_000;
/** Energy of a TRC-20 transfer to an address that holds none of the token (the dearer case). */
export const TRC20_ENERGY = 65_000n;
/** Bytes a transaction is billed for beyond its raw data (signature, result). */
const BANDWIDTH_OVERHEAD = 134;
/**
 * Raw data of a TRX transfer and of a TRC-20 `transfer` call, at most (java-tron's encoding, as
 * tronweb builds it: 134 and 211 bytes with a 4-byte amount or fee limit; a larger varint adds a few):
 * a reserve below what the transfer is billed for would leave a topped-up address short.
 */
const TRX_RAW_BYTES = 140;
const TRC20_RAW_BYTES = 220;

interface Params { energyFee: bigint; bandwidthFee: bigint; createAccountFee: bigint }

/** What java-tron answers to broadcasttransaction, as the transfer core sees it. */
export function tronBroadcastOutcome(a: Record<string, unknown>): BroadcastOutcome {
  if (a.result === true) return { kind: 'accepted' };
  const code = String(a.code ?? 'OTHER_ERROR');
  const message = hexText(a.message);
  const why = `the Tron node refused it: ${code} ${message}`.trim();
  // The node has a transaction of this very id. Ids are never shared by two transfers (each signing
  // of a sender takes a timestamp of its own, timestamps.ts), nor by two attempts of one transfer:
  // it is the same bytes, broadcast again (by a lost answer's retry, another process, a failover node).
  if (code === 'DUP_TRANSACTION_ERROR') return { kind: 'accepted' };
  if (code === 'BANDWITH_ERROR' || /balance is not sufficient|insufficient/i.test(message)) return { kind: 'no_funds', why };
  if (code === 'SERVER_BUSY' || code === 'NOT_ENOUGH_EFFECTIVE_CONNECTION' || code === 'NO_CONNECTION') return { kind: 'uncertain', why };
  return { kind: 'refused', why };
}

export class TronFamily implements TransferFamily {
  readonly chain = 'tron' as const;
  readonly usesNonces = false;
  readonly stuckAfterMs: number;
  readonly #rpc: TronRpc;
  readonly #keys: WalletKeys;
  readonly #contracts: Partial<Record<TokenSymbol, string>>;
  readonly #timestamps: TronTimestamps;
  readonly #now: () => Date;
  /** The head block's time at the last tip(): a transaction expired before it can no longer be mined. */
  #headTime = 0;

  /**
   * `contracts`: token → contract address (base58 or hex); `timestamps`: where each signing takes
   * its raw_data timestamp (the service: the database, shared by its processes); `now`: the service's clock.
   */
  constructor(rpc: TronRpc, keys: WalletKeys, contracts: Partial<Record<TokenSymbol, string>>,
    opts: { stuckAfterMs?: number; timestamps?: TronTimestamps; now?: () => Date } = {}) {
    this.#rpc = rpc;
    this.#keys = keys;
    this.#contracts = contracts;
    this.stuckAfterMs = opts.stuckAfterMs ?? 60_000;
    this.#timestamps = opts.timestamps ?? memoryTimestamps();
    this.#now = opts.now ?? (() => new Date());
  }

  hotAddress(livemode: boolean): string {
    return this.#keys.hotAddress('tron', livemode);
  }

  async #head(): Promise<RefBlock & { number: bigint }> {
    const b = await this.#rpc.wallet('getnowblock');
    const ref = tronBlockRef(b);
    if (!ref) throw new Error('the Tron node has no head block');
    this.#headTime = Math.max(this.#headTime, ref.time.getTime());
    return { blockID: ref.hash, timestamp: ref.time.getTime(), number: ref.height };
  }

  async tip(): Promise<bigint> {
    return (await this.#head()).number;
  }

  /** Tron has no nonces. */
  async chainNonce(): Promise<bigint> {
    return 0n;
  }

  async #params(): Promise<Params> {
    const r = await this.#rpc.wallet('getchainparameters');
    const list = Array.isArray(r.chainParameter) ? r.chainParameter as Array<{ key?: string; value?: number }> : [];
    const get = (key: string, fallback: bigint) => {
      const v = list.find((p) => p.key === key)?.value;
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : fallback;
    };
    return {
      energyFee: get('getEnergyFee', 420n), bandwidthFee: get('getTransactionFee', 1000n),
      createAccountFee: get('getCreateAccountFee', 100_000n) + get('getCreateNewAccountFeeInSystemContract', 1_000_000n),
    };
  }

  async #balance(hex: string): Promise<{ exists: boolean; balance: bigint }> {
    const a = await this.#rpc.wallet('getaccount', { address: hex });
    if (a.address === undefined) return { exists: false, balance: 0n };
    return { exists: true, balance: BigInt(typeof a.balance === 'number' ? a.balance : 0) };
  }

  #key(t: TransferRow): Uint8Array | null {
    const k = t.fromRole === 'hot'
      ? { address: this.#keys.hotAddress('tron', t.livemode), privateKey: this.#keys.hotPrivateKey('tron', t.livemode) }
      : t.fromIndex === null ? null : this.#keys.deposit('tron', t.livemode, t.fromIndex);
    return k && k.address === t.fromAddress ? k.privateKey : null;
  }

  #call(t: TransferRow, moved: bigint, feeLimit: bigint): TronCall | string {
    const owner = tronHex(t.fromAddress);
    const to = tronHex(t.toAddress);
    if (!owner || !to) return 'not a Tron address';
    const token = t.token as TokenSymbol;
    if (TOKEN_DEFS[token].native) return { type: 'TransferContract', owner, to, amount: moved };
    const contract = this.#contracts[token] ? tronHex(this.#contracts[token]!) : null;
    if (!contract) return `no ${token} contract is configured`;
    return { type: 'TriggerSmartContract', owner, contract, data: transferCallData(to, moved), feeLimit };
  }

  /** The most a transfer may burn: its bandwidth, a new account's creation (TRX), the energy of a TRC-20 call. */
  async #reserve(t: TransferRow, p: Params): Promise<{ reserve: bigint; feeLimit: bigint }> {
    const native = TOKEN_DEFS[t.token as TokenSymbol].native;
    const feeLimit = native ? 0n : TRC20_ENERGY * p.energyFee;
    // an upper bound of the size: the exact one is known once built
    const size = BigInt((native ? TRX_RAW_BYTES : TRC20_RAW_BYTES) + BANDWIDTH_OVERHEAD);
    let create = 0n;
    if (native) {
      const to = tronHex(t.toAddress);
      if (to && !(await this.#balance(to)).exists) create = p.createAccountFee;
    }
    return { reserve: size * p.bandwidthFee + create + feeLimit, feeLimit };
  }

  async prepare(t: TransferRow, ctx: PrepareContext): Promise<Preparation> {
    const key = this.#key(t);
    // the keys the service runs with do not derive this sender: no later try derives it either
    if (!key) return { kind: 'refused', why: 'the wallet key does not match the sending address', permanent: true };
    const token = t.token as TokenSymbol;
    const native = TOKEN_DEFS[token].native;
    const hot = t.fromRole === 'hot';
    const probe = this.#call(t, t.amount, 0n);
    // not a Tron address, or no contract configured for its token: its own fields, the service's configuration
    if (typeof probe === 'string') return { kind: 'refused', why: probe, permanent: true };
    const owner = tronHex(t.fromAddress)!;
    const [p, account, held] = await Promise.all([
      this.#params(), this.#balance(owner),
      probe.type === 'TriggerSmartContract' ? this.#rpc.tokenBalance(probe.contract, owner) : Promise.resolve(null),
    ]);
    if (!native) {
      // a node's answer, a balance: both may differ on a later try
      if (held === null) return { kind: 'refused', why: `the ${token} contract cannot be read on this node`, permanent: false };
      if (held < t.amount) {
        const why = `${hot ? 'the hot wallet' : 'the deposit address'} holds ${held} base units of ${token}, ${t.amount} are needed`;
        return hot ? { kind: 'no_funds', why } : { kind: 'refused', why, permanent: false };
      }
    }
    const { reserve, feeLimit } = await this.#reserve(t, p);
    const moved = t.paysOwnFee ? t.amount - ctx.feesPaidBefore - reserve : t.amount;
    if (moved <= 0n) return { kind: 'nothing_left', why: 'nothing is left after the network fee' };
    const need = (native ? moved : 0n) + reserve;
    // TRX of customers' deposits not moved yet is theirs to be settled, never this transfer's fee
    const deposited = ctx.heldForDeposits ? await ctx.heldForDeposits() : 0n;
    const available = account.balance - deposited;
    if (available < need) {
      const why = `${hot ? 'the hot wallet' : 'the deposit address'} holds ${account.balance} sun${deposited > 0n ? ` (${deposited} of them deposits not settled yet)` : ''}, ${need} are needed`;
      if (hot) return { kind: 'no_funds', why };
      // the energy and bandwidth prices may fall, deposits held for others be settled
      if (t.paysOwnFee) return { kind: 'refused', why, permanent: false };
      return { kind: 'top_up', amount: need + await this.#othersNeed(t, ctx, p) - available };
    }
    const call = this.#call(t, moved, feeLimit) as TronCall;
    return { kind: 'ready', sign: async (_nonce, tx) => this.#sign(t, call, key, moved, reserve, await this.#head(), tx) };
  }

  /** What the other unsent transfers from a deposit address will burn (one top-up covers them all). */
  async #othersNeed(t: TransferRow, ctx: PrepareContext, p: Params): Promise<bigint> {
    let total = 0n;
    for (const u of ctx.unsentFromSender) {
      if (u.id === t.id || u.paysOwnFee) continue;
      total += (await this.#reserve(u, p)).reserve + (TOKEN_DEFS[u.token as TokenSymbol].native ? u.amount : 0n);
    }
    return total;
  }

  /**
   * The expiration counts from the head block's time (what the node checks it against); the
   * timestamp is the service's time, never before the head block's, and never one this sender took
   * before (`tx`: the transaction storing the attempt, which holds the sender's row till it commits).
   */
  async #sign(t: TransferRow, call: TronCall, key: Uint8Array, moved: bigint, reserve: bigint, head: RefBlock, ex?: Executor): Promise<SignedTx> {
    const now = this.#now();
    const sender = { chain: this.chain, livemode: t.livemode, address: t.fromAddress };
    const timestamp = await this.#timestamps.take(sender, Math.max(now.getTime(), head.timestamp), now, ex);
    const tx = buildSigned(call, head, { expiration: head.timestamp + EXPIRATION_MS, timestamp }, key);
    return {
      txId: tx.txID, raw: JSON.stringify(tx), nonce: null, value: moved, feeReserve: reserve,
      fee: { feeLimit: String(call.type === 'TriggerSmartContract' ? call.feeLimit : 0n), expiration: String(tx.raw_data.expiration) },
    };
  }

  /** Past its expiration at the head block's time (the core saw no block holding it): it can never be mined. */
  expired(last: AttemptRow): boolean {
    const exp = Number(last.fee.expiration);
    return Number.isFinite(exp) && this.#headTime >= exp;
  }

  /** The same transfer built again, only once the last one has expired (Tron has no nonce to replace it by). */
  async replace(t: TransferRow, last: AttemptRow, ctx: PrepareContext): Promise<SignedTx | null> {
    await this.#head();
    if (!this.expired(last)) return null;
    const key = this.#key(t);
    if (!key) return null;
    const p = await this.#params();
    const { reserve, feeLimit } = await this.#reserve(t, p);
    const moved = t.paysOwnFee ? t.amount - ctx.feesPaidBefore - reserve : last.value;
    if (moved <= 0n) return null;
    const call = this.#call(t, moved, feeLimit);
    if (typeof call === 'string') return null;
    return this.#sign(t, call, key, moved, reserve, await this.#head());
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    let tx: TronSignedTx;
    try {
      tx = JSON.parse(raw) as TronSignedTx;
    } catch {
      return { kind: 'refused', why: 'the stored transaction is not JSON' };
    }
    return broadcastVia('the Tron node', async (failures) => tronBroadcastOutcome(await this.#rpc.wallet('broadcasttransaction', tx, failures)));
  }

  async inclusion(txIds: readonly string[]): Promise<Inclusion | null> {
    for (const txId of txIds) {
      const info = await this.#rpc.wallet('gettransactioninfobyid', { value: txId });
      if (typeof info.blockNumber !== 'number') continue;
      const failure = tronFailure(info);
      return { txId, block: BigInt(info.blockNumber), ok: failure === null, feePaid: BigInt(typeof info.fee === 'number' ? info.fee : 0), ...(failure === null ? {} : { failure }) };
    }
    return null;
  }

  async known(txId: string): Promise<boolean> {
    const tx = await this.#rpc.wallet('gettransactionbyid', { value: txId });
    return typeof tx.txID === 'string';
  }

  /**
   * What moving a deposit of `token` out costs now, in sun (the market's network fee quote): two
   * transfers (the merchant's net and the service's share), each paying its bandwidth; a TRX payout
   * account may have to be created; a token's two calls burn their energy, and the deposit address
   * is first created and given TRX by the hot wallet (one more transfer, its creation fee).
   */
  async quoteSweepFee(token: TokenSymbol): Promise<bigint> {
    const p = await this.#params();
    const native = TOKEN_DEFS[token].native;
    const bandwidth = (bytes: number) => BigInt(bytes + BANDWIDTH_OVERHEAD) * p.bandwidthFee;
    if (native) return 2n * bandwidth(TRX_RAW_BYTES) + p.createAccountFee;
    return 2n * (bandwidth(TRC20_RAW_BYTES) + TRC20_ENERGY * p.energyFee) + bandwidth(TRX_RAW_BYTES) + p.createAccountFee;
  }

  /** TRX balance in sun of an address (hot wallet balances). */
  async balance(address: string): Promise<bigint> {
    const hex = tronHex(address);
    return hex ? (await this.#balance(hex)).balance : 0n;
  }

  async tokenBalance(token: TokenSymbol, address: string): Promise<bigint | null> {
    const contract = this.#contracts[token] ? tronHex(this.#contracts[token]!) : null;
    const hex = tronHex(address);
    return contract && hex ? this.#rpc.tokenBalance(contract, hex) : null;
  }
}
