// Bitcoin, Litecoin and Dogecoin in the transfer machinery. A settlement is one transaction: it
// spends the deposit outputs its transfers add up to and pays each of them one output (the
// merchant's `net` exactly, the service's share less the network fee, which is the transaction's
// fee). The first of a reference's transfers to be prepared builds and signs it for all of them;
// the others are then "signed" as that same transaction, so the worker's usual path (record, send,
// mined, final) applies to each and nothing is ever sent twice. No nonces: what a transaction spends
// is in its signed bytes, recorded before broadcast. A stuck one is replaced with a higher fee
// spending the same inputs (BIP-125) where the coin allows it.
// From the hot wallet (a payout, a conversion's transfer) the transaction spends the hot wallet's
// tracked outputs (hot-wallet.ts), reserved in the transaction that stores its signed bytes, pays the
// recipient exactly and the change back to the hot wallet, which pays the fee.
import type { UtxoChain, UtxoNetwork, UtxoNetworkKind } from '../../addresses/index.ts';
import { UTXO_NETWORKS, inModeNetwork, liveNetwork } from '../../addresses/index.ts';
import { NoNodeAnswered } from '../../rpc/endpoints.ts';
import { RpcError, TransportError } from '../../rpc/json-rpc.ts';
import type { WalletKeys } from '../../wallets/keys.ts';
import type { AttemptRow, TransferRow } from '../../transfers/schema.ts';
import { afterFailover } from '../../transfers/broadcasting.ts';
import type { BroadcastOutcome, Inclusion, PrepareContext, Preparation, SignedTx, TransferFamily } from '../../transfers/types.ts';
import { UTXO_COINS, coinsToBaseUnits, type UtxoCoin } from '../coins.ts';
import { inBestChain, type NodeBlockHeader, type NodeTx } from '../node-shapes.ts';
import { RPC_VERIFY_ALREADY_IN_CHAIN, type UtxoRpc } from '../rpc.ts';
import { scriptOfAddress } from '../scripts.ts';
import type { UtxoReader } from '../reader.ts';
import { selectExact } from './coin-select.ts';
import { unspentOutputs, type DepositTxs, type UnspentInput } from './deposit-outputs.ts';
import { currentFeeRate, feeFor } from './fee-rate.ts';
import { belowDust, type PlannedTransfer } from './outputs.ts';
import { txIdOf } from './sign.ts';
import { buildSpend, notOnNetwork, type Carried, type SpendRecord } from './build-spend.ts';
import type { HotOutputs, Outpoint } from './hot-outputs.ts';
import { UtxoHotWallet, VERIFY_BATCH } from './hot-wallet.ts';
import type { Executor } from '../../../platform/db/index.ts';
import { nodeTransactions, rawTransactions } from './raw-transactions.ts';

/** The id a hot-wallet spend's change output carries in its record (it is no transfer of its own). */
export const CHANGE = 'change';

/**
 * Virtual bytes of a hot-wallet spend with `inputs` inputs, at most: the recipient's output as the
 * largest standard one (51: a future witness version's 40-byte program, BIP-350) and the change;
 * legacy P2PKH on Dogecoin.
 */
export function fundingVbytes(coin: UtxoCoin, inputs: number): number {
  return coin.script === 'p2wpkh' ? 11 + 69 * inputs + 51 + 31 : 10 + 149 * inputs + 2 * 34;
}

/**
 * The most inputs a hot-wallet spend takes: as many as fit in 90% of the node's standard size
 * (fundingVbytes at most; Bitcoin and Litecoin 1,303, Dogecoin 603), so a signature a byte longer or
 * a larger recipient's script never makes it one the node refuses as too large.
 */
export function maxHotInputs(coin: UtxoCoin): number {
  const room = Math.floor(coin.maxStandardVbytes * 0.9);
  return Math.floor((room - fundingVbytes(coin, 0)) / (fundingVbytes(coin, 1) - fundingVbytes(coin, 0)));
}

export interface UtxoFamilyOptions {
  stuckAfterMs?: number;
  /** The hot wallet's tracked outputs (sending from it needs them). */
  hot?: HotOutputs;
  now?: () => Date;
  /** The most inputs a hot-wallet spend takes (maxHotInputs of the coin unless given: a test's smaller one). */
  maxInputs?: number;
}

/** Refusals this family gives in more than one place. */
const notTracked = (chain: string) => `the ${chain} hot wallet's outputs are not tracked`;
export const networkMoved = (chain: string, was: string, now: string) =>
  `the ${chain} node now serves the ${now} network, not the ${was} network it served: nothing is signed for it`;

export class UtxoFamily implements TransferFamily {
  readonly chain: UtxoChain;
  readonly usesNonces = false;
  readonly oneTransactionPerReference = true;
  readonly stuckAfterMs: number;
  readonly coin: UtxoCoin;
  readonly #rpc: UtxoRpc;
  readonly #reader: UtxoReader;
  readonly #keys: WalletKeys;
  readonly #depositTxs: DepositTxs;
  readonly #now: () => Date;
  /** Null without a store of tracked outputs: sending from the hot wallet is then refused. */
  readonly hotWallet: UtxoHotWallet | null;
  /** The most inputs a hot-wallet spend (a consolidation too) takes; a test lowers it so a few outputs are too many. */
  maxInputs: number;
  /** The network this process signs for (the first one read) and the node URL it was last read from (#network). */
  #kind: UtxoNetworkKind | null = null;
  #checkedUrl: string | null = null;

  constructor(reader: UtxoReader, rpc: UtxoRpc, keys: WalletKeys, depositTxs: DepositTxs, opts: UtxoFamilyOptions = {}) {
    this.chain = reader.chain;
    this.coin = UTXO_COINS[reader.chain];
    this.#rpc = rpc;
    this.#reader = reader;
    this.#keys = keys;
    this.#depositTxs = depositTxs;
    this.#now = opts.now ?? (() => new Date());
    this.maxInputs = opts.maxInputs ?? maxHotInputs(this.coin);
    this.hotWallet = opts.hot ? new UtxoHotWallet(this.chain, rpc, opts.hot, () => this.hotAddress(true)) : null;
    // three blocks' time without being mined: bumped
    this.stuckAfterMs = opts.stuckAfterMs ?? this.coin.blockMs * 3;
  }

  /**
   * The network the node serves, read (2 RPCs; the reader refuses a node of another coin) once per
   * node in use rather than on every send and balance read: again only when the chain's calls have
   * moved on to another of its URLs. The first network read is the one this process signs for: a
   * node serving another one later (another URL, or this one as the watcher of this process reads
   * it on every pass, which moves the live network) is refused here before anything is signed, and
   * asked again on the next call. A node of another network cannot know this one's outputs anyway:
   * what was signed for them before it is read again is refused at broadcast.
   */
  async #network(): Promise<UtxoNetwork> {
    const url = this.#rpc.nodes.current;
    if (this.#checkedUrl !== url) {
      await this.#reader.network();
      this.#kind ??= liveNetwork(this.chain);
      this.#checkedUrl = url;
    }
    const now = liveNetwork(this.chain);
    if (now !== this.#kind) {
      this.#checkedUrl = null;
      throw new Error(networkMoved(this.chain, this.#kind!, now));
    }
    return UTXO_NETWORKS[this.chain][this.#kind];
  }

  hotAddress(livemode: boolean): string {
    return inModeNetwork(this.chain, livemode, this.#keys.hotAddress(this.chain, livemode));
  }

  async tip(): Promise<bigint> {
    return BigInt(await this.#rpc.call<number>('getblockcount'));
  }

  /** No nonces on these chains. */
  async chainNonce(): Promise<bigint> {
    return 0n;
  }

  #key(t: TransferRow): Uint8Array | null {
    if (t.fromRole === 'hot') {
      return this.hotAddress(t.livemode) === inModeNetwork(this.chain, t.livemode, t.fromAddress) ? this.#keys.hotPrivateKey(this.chain, t.livemode) : null;
    }
    if (t.fromRole !== 'deposit' || t.fromIndex === null) return null;
    const k = this.#keys.deposit(this.chain, t.livemode, t.fromIndex);
    return inModeNetwork(this.chain, t.livemode, k.address) === t.fromAddress ? k.privateKey : null;
  }

  async prepare(t: TransferRow, ctx: PrepareContext): Promise<Preparation> {
    const carried = this.#carriedBy(t, ctx);
    if (carried) return { kind: 'ready', sign: async () => carried };
    const key = this.#key(t);
    // the keys the service runs with do not derive this sender: no later try derives it either
    if (!key) return { kind: 'refused', why: 'the wallet key does not match the sending address', permanent: true };
    if (t.fromRole === 'hot') return t.purpose === 'consolidation' ? this.#prepareConsolidation(t, key) : this.#prepareHot(t, key);
    const network = await this.#network();
    const group = [t, ...ctx.unsentFromSender.filter((u) => u.id !== t.id && u.reference === t.reference && u.status === 'recorded')];
    // the hot wallet (a sweep's or the service's share's destination) in the node's network, whenever its address was written
    const transfers: PlannedTransfer[] = group.map((g) => ({ id: g.id, to: inModeNetwork(this.chain, g.livemode, g.toAddress), amount: g.amount, paysOwnFee: g.paysOwnFee }));
    const total = transfers.reduce((s, x) => s + x.amount, 0n);
    const normalize = (a: string) => this.#reader.normalizeAddress(a);
    const unspent = await unspentOutputs(this.#rpc, network, t.fromAddress, await this.#depositTxs(this.chain, t.fromAddress), normalize);
    const inputs = selectExact(unspent, total);
    if (!inputs) {
      const held = unspent.reduce((s, u) => s + u.amount, 0n);
      // its outputs may yet confirm, or a node that lags catch up: tried again
      return { kind: 'refused', why: `the deposit address holds no confirmed outputs worth exactly ${total} base units (it holds ${held} in ${unspent.length})`, permanent: false };
    }
    const rate = await currentFeeRate(this.#rpc, this.coin);
    // the node the outputs were read from served the network they are signed for
    await this.#network();
    const built = await buildSpend(this.coin, network, inputs, transfers, key, (vsize) => feeFor(rate, vsize), rate);
    if ('kind' in built) return built;
    return { kind: 'ready', sign: async () => built.of(t.id) };
  }

  /**
   * From the hot wallet: outputs it holds worth the amount and the fee (oldest first), the node's
   * UTXO set scanned for more when they fall short; reserved and signed in the transaction that
   * stores the attempt. Taken meanwhile by a parallel send: chosen again on the next pass.
   */
  async #prepareHot(t: TransferRow, key: Uint8Array): Promise<Preparation> {
    const wallet = this.hotWallet;
    // this process runs without the hot wallet's outputs (its configuration): tried again, as a restart may bring them
    if (!wallet) return { kind: 'refused', why: notTracked(this.chain), permanent: false };
    const network = await this.#network();
    const to = inModeNetwork(this.chain, t.livemode, t.toAddress);
    const toScript = scriptOfAddress(network, to);
    // the transfer's own fields: no later try can pass
    if (!toScript) return { kind: 'refused', why: notOnNetwork(to, this.chain), permanent: true };
    if (t.amount < this.coin.dustLimit) return { kind: 'refused', why: belowDust(t.amount, to, this.coin.dustLimit), permanent: true };
    const rate = await currentFeeRate(this.#rpc, this.coin);
    const feeOf = (n: number) => feeFor(rate, fundingVbytes(this.coin, n));
    const max = this.maxInputs;
    let found = await wallet.select(t.id, t.amount, feeOf, max);
    if (!found.inputs && await wallet.discover(this.#now())) found = await wallet.select(t.id, t.amount, feeOf, max);
    const inputs = found.inputs;
    if (!inputs) {
      // what an earlier try of it held (a node refused that one: nothing of it is out there) is free
      // for others meanwhile; not what a parallel pass signed it with since this one read it
      await wallet.store.releaseUnsigned(this.chain, t.id);
      const held = `the ${this.chain} hot wallet holds ${found.held} base units in ${found.count} spendable outputs`;
      const needed = `${t.amount} and the network fee are needed`;
      // enough in all, too many of them for one transaction the node relays: the smallest ones are
      // made one first (a consolidation; again, once it is mined, if that is not yet enough)
      if (found.count > max && found.held > t.amount) {
        const why = `${held}, but one transaction spends at most ${max} of them (the node's standard size), worth ${found.within}; ${needed}`;
        const smallest = [...found.confirmed].sort((a, b) => (a.amount === b.amount ? 0 : a.amount < b.amount ? -1 : 1)).slice(0, max);
        const amount = smallest.reduce((s, o) => s + o.amount, 0n);
        // what it would leave after its fee makes an output worth spending; otherwise it waits for funds, saying why
        if (amount - feeOf(max) >= this.coin.dustLimit) {
          return {
            kind: 'consolidate', amount, why: `${why}; its ${smallest.length} smallest, worth ${amount}, become one`,
            reserve: (tx, id) => this.#reserve(tx, wallet, { id, livemode: t.livemode }, smallest),
          };
        }
        return { kind: 'no_funds', why };
      }
      return { kind: 'no_funds', why: `${held}; ${needed}` };
    }
    const chosen = inputs;
    const change = this.hotAddress(t.livemode);
    // read from the node before the transaction that reserves them (no node round trips while it
    // holds its locks); a transaction's bytes never change, so what is read here is what is signed
    const spend = await this.#hotInputs(network, chosen, change);
    // the node the inputs were read from served the network they are signed for
    await this.#network();
    return {
      kind: 'ready',
      sign: async (_nonce, tx) => {
        if (!tx) throw new Error('a hot-wallet spend is signed inside the transaction that stores it');
        await this.#reserve(tx, wallet, t, chosen);
        const total = chosen.reduce((s, o) => s + o.amount, 0n);
        const transfers: PlannedTransfer[] = [
          { id: t.id, to, amount: t.amount, paysOwnFee: false },
          { id: CHANGE, to: change, amount: total - t.amount, paysOwnFee: true },
        ];
        const built = await buildSpend(this.coin, network, spend, transfers, key, (vsize) => feeFor(rate, vsize), rate);
        if ('kind' in built) throw new Error(built.why);
        return built.of(t.id);
      },
    };
  }

  /**
   * A consolidation: the hot wallet pays itself, one output of the outputs reserved for it when it
   * was recorded less the fee (the service's cost, its `mined_fee`), tracked once mined as change is.
   * One of them spent or gone meanwhile gives it up at once: the transfer waiting for it is prepared
   * again and records another one if it still needs it.
   */
  async #prepareConsolidation(t: TransferRow, key: Uint8Array): Promise<Preparation> {
    const wallet = this.hotWallet;
    if (!wallet) return { kind: 'refused', why: notTracked(this.chain), permanent: false };
    const network = await this.#network();
    const outs = await wallet.store.of(wallet.store.db.orm, this.chain, t.id);
    const total = outs.reduce((s, o) => s + o.amount, 0n);
    if (outs.length < 2 || total !== t.amount) {
      return { kind: 'refused', why: `the outputs it was recorded to spend are no longer all tracked (${outs.length} left, worth ${total} of ${t.amount})`, permanent: true };
    }
    const gone = await wallet.missing(outs);
    if (gone > 0) return { kind: 'refused', why: `${gone} of the ${outs.length} outputs it spends are no longer unspent and confirmed`, permanent: true };
    const rate = await currentFeeRate(this.#rpc, this.coin);
    const hot = this.hotAddress(t.livemode);
    const spend = await this.#hotInputs(network, outs, hot);
    await this.#network();
    return {
      kind: 'ready',
      sign: async (_nonce, tx) => {
        if (!tx) throw new Error('a hot-wallet spend is signed inside the transaction that stores it');
        await this.#reserve(tx, wallet, t, outs);
        const built = await buildSpend(this.coin, network, spend, [{ id: t.id, to: hot, amount: total, paysOwnFee: true }], key, (vsize) => feeFor(rate, vsize), rate);
        if ('kind' in built) throw new Error(built.why);
        return built.of(t.id);
      },
    };
  }

  /** Takes `chosen` for `t` in `tx` (the attempt's transaction); throws when a parallel send took one first. */
  async #reserve(tx: Executor, wallet: UtxoHotWallet, t: Pick<TransferRow, 'id' | 'livemode'>, chosen: readonly Outpoint[]): Promise<void> {
    const free = new Set((await wallet.store.free(tx, this.chain, t.livemode, t.id, true)).map((o) => `${o.txid}:${o.vout}`));
    if (chosen.some((o) => !free.has(`${o.txid}:${o.vout}`))) {
      throw new Error('an output chosen for this transfer was taken by another send meanwhile; chosen again on the next pass');
    }
    await wallet.store.reserve(tx, this.chain, t.id, chosen);
  }

  /**
   * The hot wallet's outputs as inputs to sign. Dogecoin's legacy inputs sign over their whole
   * previous transaction: those are read in batch requests, each once, 100 to a request.
   */
  async #hotInputs(network: UtxoNetwork, outs: ReadonlyArray<{ txid: string; vout: number; amount: bigint }>, address: string): Promise<UnspentInput[]> {
    const script = scriptOfAddress(network, address)!;
    const prev = this.coin.script === 'p2pkh' ? await rawTransactions(this.#rpc, outs.map((o) => o.txid)) : null;
    return outs.map((o) => ({ txid: o.txid, vout: o.vout, amount: o.amount, height: 0, script, ...(prev ? { prevRaw: prev.get(o.txid)! } : {}) }));
  }

  /** A transaction the chain watcher saw paying the live hot wallet in a block at `height` (an operator's top-up, say): its outputs are tracked. */
  async hotArrival(txId: string, height: bigint): Promise<void> {
    if (!this.hotWallet) return;
    const tx = await this.#rpc.call<NodeTx>('getrawtransaction', [txId, 1]);
    await this.hotWallet.recordMined(await this.#network(), tx, Number(height), (a) => this.#reader.normalizeAddress(a), this.#now());
  }

  /** Balance of the live hot wallet from its tracked outputs (/admin/wallets). */
  async hotBalance(): Promise<bigint> {
    if (!this.hotWallet) throw new Error(notTracked(this.chain));
    await this.#network();
    return this.hotWallet.balance(this.#now());
  }

  /** The transaction of a sibling transfer that carries this one (signed before a crash or for the sibling). */
  #carriedBy(t: TransferRow, ctx: PrepareContext): SignedTx | null {
    for (const s of ctx.siblings ?? []) {
      if (s.row.status === 'failed' || s.row.status === 'canceled' || s.row.status === 'recorded') continue;
      const attempt = s.row.txId ? s.attempts.find((a) => a.txId === s.row.txId) : s.attempts.at(-1);
      if (!attempt) continue;
      const carries = JSON.parse((attempt.fee as unknown as SpendRecord).carries ?? '[]') as Carried[];
      const mine = carries.find((c) => c.id === t.id);
      if (mine) return { txId: attempt.txId, raw: attempt.raw, nonce: null, value: BigInt(mine.paid), fee: attempt.fee, feeReserve: 0n };
    }
    return null;
  }

  /**
   * The same inputs and outputs with a higher fee: at least the current rate, and (BIP-125) at
   * least the old fee plus the minimum rate for the new size. Null where the coin has no replacement
   * or the service's share cannot pay it.
   */
  async replace(t: TransferRow, last: AttemptRow): Promise<SignedTx | null> {
    if (!this.coin.replaceable) return null;
    const key = this.#key(t);
    const record = last.fee as unknown as SpendRecord;
    if (!key || !record.inputs) return null;
    const network = await this.#network();
    const outpoints = JSON.parse(record.inputs) as Outpoint[];
    const carries = (JSON.parse(record.carries) as Carried[]).map((c) => ({ id: c.id, to: c.to, amount: BigInt(c.amount), paysOwnFee: c.paysOwnFee }));
    const inputs: UnspentInput[] = [];
    const prev = await nodeTransactions(this.#rpc, outpoints.map((o) => o.txid));
    for (const o of outpoints) {
      const tx = prev.get(o.txid);
      const v = tx?.vout.find((x) => x.n === o.vout);
      if (!tx || !v?.scriptPubKey?.hex || v.value === undefined) return null;
      inputs.push({ txid: o.txid, vout: o.vout, amount: coinsToBaseUnits(v.value), height: 0, script: Buffer.from(v.scriptPubKey.hex, 'hex'), prevRaw: Buffer.from(tx.hex, 'hex') });
    }
    const rate = await currentFeeRate(this.#rpc, this.coin);
    const oldFee = BigInt(record.fee);
    const feeOf = (vsize: number) => {
      const now = feeFor(rate, vsize);
      const bumped = oldFee + feeFor(this.coin.minFeePerKvb, vsize);
      return now > bumped ? now : bumped;
    };
    const built = await buildSpend(this.coin, network, inputs, carries, key, feeOf, rate);
    return 'kind' in built ? null : built.of(t.id);
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    const failures: string[] = [];
    try {
      await this.#rpc.call('sendrawtransaction', [raw], failures);
      return { kind: 'accepted' };
    } catch (err) {
      return afterFailover(await this.#refusal(raw, err), failures);
    }
  }

  /** What the node's error means for the transaction. */
  async #refusal(raw: string, err: unknown): Promise<BroadcastOutcome> {
    if (err instanceof NoNodeAnswered || err instanceof TransportError) return { kind: 'uncertain', why: err.message };
    if (!(err instanceof RpcError)) return { kind: 'uncertain', why: (err as Error).message };
    if (err.code === RPC_VERIFY_ALREADY_IN_CHAIN || /already in (block ?chain|the mempool)|txn-already-(in-mempool|known)/i.test(err.message)) return { kind: 'accepted' };
    // the inputs are gone: spent by this very transaction (mined meanwhile), or by another one
    if (/missing ?inputs|inputs-missingorspent/i.test(err.message) && await this.known(txIdOf(raw))) return { kind: 'accepted' };
    return { kind: 'refused', why: `the node refused the transaction: ${err.message}` };
  }

  async inclusion(txIds: readonly string[]): Promise<Inclusion | null> {
    for (const txId of txIds) {
      const mined = await this.#mined(txId);
      if (!mined) continue;
      // what it paid the hot wallet (the service's share, a sweep, change) can be spent from now on
      await this.hotWallet?.recordMined(await this.#network(), mined.tx, mined.height, (a) => this.#reader.normalizeAddress(a), this.#now());
      return { txId, block: BigInt(mined.height), ok: true, feePaid: await this.#feeOf(mined.tx) };
    }
    return null;
  }

  /** The transaction and the height of its block, when it is in the best chain. */
  async #mined(txId: string): Promise<{ tx: NodeTx; height: number } | null> {
    const tx = await this.#rpc.maybe<NodeTx>('getrawtransaction', [txId, 1]);
    if (!inBestChain(tx)) return null;
    const header = await this.#rpc.call<NodeBlockHeader>('getblockheader', [tx.blockhash, true]);
    return { tx, height: header.height };
  }

  /**
   * What the transaction paid the network: its inputs' value less its outputs'. Asked on every pass
   * until the transfer is final: the inputs' transactions are read in batches, each once.
   */
  async #feeOf(tx: NodeTx): Promise<bigint> {
    let fee = 0n;
    const spent = tx.vin.filter((i) => i.txid !== undefined && i.vout !== undefined);
    const prevs = await nodeTransactions(this.#rpc, spent.map((i) => i.txid!));
    for (const i of spent) {
      const prev = prevs.get(i.txid!);
      // the node knows the transaction (txindex): not its input's, which it must have to have taken it
      if (!prev) throw new Error(`the node does not know transaction ${i.txid}, whose output ${tx.txid} spends`);
      const v = prev.vout.find((o) => o.n === i.vout);
      fee += v?.value === undefined ? 0n : coinsToBaseUnits(v.value);
    }
    for (const o of tx.vout) if (o.value !== undefined) fee -= coinsToBaseUnits(o.value);
    return fee;
  }

  /**
   * Whether another transaction at or below `finalHeight` spends one of the attempts' inputs (they
   * all spend the same ones): then none of them can ever be mined, and the transfer is signed again
   * with other outputs. An operator who spends an output of the hot wallet from a wallet restored
   * from WALLET_MNEMONIC releases a transfer that stays refused this way. The stepper has looked for
   * the attempts in blocks first (txindex), so a spend at that depth is not one of them. A hot-wallet
   * output so spent is no longer tracked.
   */
  async spentElsewhere(attempts: readonly AttemptRow[], finalHeight: bigint): Promise<boolean> {
    const record = attempts.at(-1)?.fee as unknown as SpendRecord | undefined;
    if (!record?.inputs) return false;
    // unspent in the best chain (a spend only in the mempool is not final): asked in batches, as a
    // stuck consolidation of many inputs is asked on every pass
    const notUnspent = await this.#notUnspent(JSON.parse(record.inputs) as Outpoint[]);
    // their own transactions, each once (many inputs come from one), in batches too
    const funding = notUnspent.length > 0 ? await this.#minedEach(notUnspent.map((o) => o.txid)) : new Map<string, number>();
    // the output's own transaction left the best chain, or is not final: it may come back with the output
    const gone = notUnspent.filter((o) => { const height = funding.get(o.txid); return height !== undefined && BigInt(height) <= finalHeight; });
    // a spend in a block above the final height may still be reorganised away (or be ours, just mined)
    const spentAbove = gone.length > 0 ? await this.#spentAbove(gone, finalHeight) : new Set<string>();
    const taken = gone.find((o) => !spentAbove.has(`${o.txid}:${o.vout}`));
    if (!taken) return false;
    // a hot-wallet output gone for good no longer counts in its balance
    await this.hotWallet?.store.forget(this.chain, taken);
    return true;
  }

  /**
   * The height of the block of each of `txIds` that is in the best chain (as #mined, each asked
   * once): the transactions in batch requests (nodeTransactions), then their blocks' headers in one.
   */
  async #minedEach(txIds: readonly string[]): Promise<Map<string, number>> {
    const mined = [...(await nodeTransactions(this.#rpc, txIds)).entries()].filter(([, tx]) => inBestChain(tx)) as Array<[string, NodeTx & { blockhash: string }]>;
    const blocks = [...new Set(mined.map(([, tx]) => tx.blockhash))];
    const headers = blocks.length > 0 ? await this.#rpc.batch(blocks.map((hash) => ({ method: 'getblockheader', params: [hash, true] }))) : [];
    const heights = new Map<string, number>();
    headers.forEach((h, j) => {
      if (h instanceof RpcError) throw h;
      heights.set(blocks[j], (h as NodeBlockHeader).height);
    });
    return new Map(mined.map(([id, tx]) => [id, heights.get(tx.blockhash)!]));
  }

  /** Those of `outs` the best chain's UTXO set does not hold (`gettxout` without the mempool), asked as the hot wallet asks its outputs. */
  async #notUnspent(outs: readonly Outpoint[]): Promise<Outpoint[]> {
    const coins = await this.#rpc.maybeEach(outs.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, false] })), VERIFY_BATCH);
    return outs.filter((_, j) => coins[j] === null);
  }

  /**
   * Which of the outputs a transaction of a block above `height` spends (`txid:vout`); all of them
   * when a block is replaced while it is read, so nothing is decided on it.
   */
  async #spentAbove(outs: readonly Outpoint[], height: bigint): Promise<Set<string>> {
    const wanted = new Set(outs.map((o) => `${o.txid}:${o.vout}`));
    const spent = new Set<string>();
    const tip = await this.tip();
    for (let h = height + 1n; h <= tip; h++) {
      const txs = await this.#reader.transactionsAt(h);
      if (!txs) return wanted;
      for (const tx of txs) for (const i of tx.vin) if (wanted.has(`${i.txid}:${i.vout}`)) spent.add(`${i.txid}:${i.vout}`);
    }
    return spent;
  }

  /** In the mempool or in the best chain (a transaction of a block that left it is not known until it is back). */
  async known(txId: string): Promise<boolean> {
    const tx = await this.#rpc.maybe<NodeTx>('getrawtransaction', [txId, 1]);
    return !!tx && (!tx.blockhash || inBestChain(tx));
  }
}
