// A Bitcoin-family hot wallet without a node wallet: its outputs are the ones HotOutputs tracks,
// learnt from the transactions of ours that pay it once mined and, for money sent to it from
// elsewhere (an operator's top-up), from the blocks the chain watcher reads (UtxoFamily.hotArrival)
// and from the node's UTXO set (`scantxoutset`, Bitcoin Core and Litecoin 0.21; a whole-UTXO-set
// scan, so at most once a minute, when a send falls short or the balance is read); a free output
// that scan no longer shows was spent elsewhere and is forgotten (on a node that cannot scan,
// Dogecoin 1.14, each free output is asked instead).
// Before outputs are spent each is asked of the node (`gettxout`, mempool included): one spent
// elsewhere or gone with a reorganisation is never signed for.
import type { UtxoChain, UtxoNetwork } from '../../addresses/index.ts';
import { RpcError, methodUnsupported } from '../../rpc/json-rpc.ts';
import { coinsToBaseUnits, type CoinAmount } from '../coins.ts';
import type { NodeTx } from '../node-shapes.ts';
import { inBestChain, scriptAddress } from '../node-shapes.ts';
import { RPC_INVALID_ADDRESS_OR_KEY, type UtxoRpc } from '../rpc.ts';
import type { HotOutput, HotOutputs } from './hot-outputs.ts';
import { TXS_PER_REQUEST } from './raw-transactions.ts';

/**
 * Outputs asked of the node (`gettxout`) per JSON-RPC batch: an answer is a few hundred bytes, so a
 * request stays near 100 kB, and a wallet of 5,000 outputs is asked in 10 round trips, not 200.
 */
export const VERIFY_BATCH = 500;
/**
 * Coin selection's first batch: a send is most often covered by a few of the oldest outputs, and
 * the rest are not asked about. Each further batch is twice the last, up to VERIFY_BATCH, so a send
 * that needs them all still takes a few round trips.
 */
export const FIRST_SELECT_BATCH = 25;

/** What `scantxoutset start` answers (amounts in coins). */
interface UtxoScan { height?: number; unspents?: Array<{ txid: string; vout: number; amount: CoinAmount; height: number }> }

/** The node's UTXO set is scanned at most this often per wallet. */
export const DISCOVER_EVERY_MS = 60_000;

export class UtxoHotWallet {
  readonly chain: UtxoChain;
  readonly store: HotOutputs;
  readonly #rpc: UtxoRpc;
  readonly #address: () => string;
  #lastScan = -Infinity;
  #scans = true;

  /** `address`: the live hot wallet's address in the node's network. */
  constructor(chain: UtxoChain, rpc: UtxoRpc, store: HotOutputs, address: () => string) {
    this.chain = chain;
    this.#rpc = rpc;
    this.store = store;
    this.#address = address;
  }

  /** Records the outputs of a mined transaction that pay the hot wallet. */
  async recordMined(network: UtxoNetwork, tx: NodeTx, height: number, normalize: (a: string) => string, now: Date): Promise<void> {
    const hot = this.#address();
    const outs: HotOutput[] = [];
    for (const v of tx.vout) {
      if (v.value === undefined) continue;
      const to = scriptAddress(network, v.scriptPubKey);
      if (to && normalize(to) === hot) outs.push({ txid: tx.txid, vout: v.n, amount: coinsToBaseUnits(v.value), height });
    }
    await this.store.add(this.chain, true, outs, now);
  }

  /**
   * Looks for outputs paying the hot wallet in the node's UTXO set, and forgets the free ones it no
   * longer has; at most once every DISCOVER_EVERY_MS. False when nothing new can have been found:
   * scanned less than DISCOVER_EVERY_MS ago, or a node that cannot scan (Dogecoin 1.14), where
   * only the outputs spent elsewhere are looked for (#forgetSpent).
   */
  async discover(now: Date): Promise<boolean> {
    if (now.getTime() - this.#lastScan < DISCOVER_EVERY_MS) return false;
    this.#lastScan = now.getTime();
    const scan = this.#scans ? await this.#scan() : null;
    if (!scan) {
      if (!this.#scans) await this.#forgetSpent();
      return false;
    }
    const unspent = (scan.unspents ?? []).map((u) => ({ txid: u.txid, vout: u.vout, amount: coinsToBaseUnits(u.amount), height: u.height }));
    await this.store.add(this.chain, true, unspent, now);
    // what the wallet held no longer there (an operator moving funds to cold storage, say) leaves the balance
    if (scan.height !== undefined) await this.store.forgetMissing(this.chain, true, unspent, scan.height);
    return true;
  }

  /** The node's UTXO set scanned for the hot wallet; null when the node refused (#scans false: it has no such call). */
  async #scan(): Promise<UtxoScan | null> {
    try {
      return await this.#rpc.call<UtxoScan>('scantxoutset', ['start', [`addr(${this.#address()})`]]);
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      if (methodUnsupported(err)) this.#scans = false;
      return null;
    }
  }

  /**
   * Without a UTXO set scan: a free output the best chain's UTXO set no longer has (`gettxout`
   * without the mempool: a spend only in the mempool is not final) is forgotten when its own
   * transaction is in a block (spent by a transaction that is not ours) or known to the node no
   * more (its block left the best chain and it was replaced or dropped: the watcher records it
   * again if it is ever mined); one whose transaction is back in the mempool after a
   * reorganisation may come back with it, and stays. Asked in batches, VERIFY_BATCH outputs each.
   */
  async #forgetSpent(): Promise<void> {
    const free = await this.store.free(this.store.db.orm, this.chain, true, null);
    for (let i = 0; i < free.length; i += VERIFY_BATCH) {
      const chunk = free.slice(i, i + VERIFY_BATCH);
      const coins = await this.#rpc.batch(chunk.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, false] })));
      const missing = chunk.filter((_, j) => coins[j] === null);
      if (missing.length === 0) continue;
      // each funding transaction once (many outputs may share one), TXS_PER_REQUEST to a request as
      // raw-transactions.ts reads them: VERIFY_BATCH decoded ones would make an answer of megabytes
      const ids = [...new Set(missing.map((o) => o.txid))];
      const goneTx = new Set<string>();
      for (let k = 0; k < ids.length; k += TXS_PER_REQUEST) {
        const part = ids.slice(k, k + TXS_PER_REQUEST);
        const funding = await this.#rpc.batch(part.map((txid) => ({ method: 'getrawtransaction', params: [txid, 1] })));
        part.forEach((txid, j) => {
          const tx = funding[j];
          if (tx instanceof RpcError ? tx.code === RPC_INVALID_ADDRESS_OR_KEY : inBestChain(tx as NodeTx | null)) goneTx.add(txid);
        });
      }
      await this.store.forgetFree(this.chain, true, missing.filter((o) => goneTx.has(o.txid)));
    }
  }

  /**
   * The outputs `transferId` may spend that cover `amount` and the fee of spending them
   * (`feeOf(n)`), at most `max` of them (the node's standard size), each confirmed unspent by the
   * node: the oldest ones first, asked in growing batches and only as far as needed (a wallet of
   * thousands of small outputs is not asked about all of them); when `max` of the oldest fall short, the largest
   * ones (all of them asked). Short: null with what the node confirmed in all of them and what
   * the `max` largest are worth (`within`).
   */
  async select(transferId: string, amount: bigint, feeOf: (inputs: number) => bigint, max: number):
    Promise<{ inputs: HotOutput[] | null; held: bigint; count: number; within: bigint; confirmed: HotOutput[] }> {
    const free = await this.store.free(this.store.db.orm, this.chain, true, transferId);
    const confirmed: HotOutput[] = [];
    let held = 0n;
    for (let i = 0, size = FIRST_SELECT_BATCH; i < free.length; i += size, size = Math.min(size * 2, VERIFY_BATCH)) {
      const chunk = free.slice(i, i + size);
      for (const o of await this.#unspent(chunk)) {
        confirmed.push(o);
        held += o.amount;
        if (confirmed.length <= max && held >= amount + feeOf(confirmed.length)) return { inputs: confirmed, held, count: confirmed.length, within: held, confirmed };
      }
    }
    if (confirmed.length <= max) return { inputs: null, held, count: confirmed.length, within: held, confirmed };
    // more outputs than one transaction may spend: the largest first (the oldest among equal ones)
    const largest = confirmed.map((o, n) => ({ o, n })).sort((a, b) => (a.o.amount === b.o.amount ? a.n - b.n : a.o.amount > b.o.amount ? -1 : 1)).map((x) => x.o);
    let within = 0n;
    for (const [k, o] of largest.slice(0, max).entries()) {
      within += o.amount;
      if (within >= amount + feeOf(k + 1)) return { inputs: largest.slice(0, k + 1), held, count: confirmed.length, within, confirmed };
    }
    return { inputs: null, held, count: confirmed.length, within, confirmed };
  }

  /** Those of `outs` (at most VERIFY_BATCH) the node has unspent and confirmed (`gettxout`, mempool included: one spent there is not). */
  async #unspent(outs: readonly HotOutput[]): Promise<HotOutput[]> {
    const coins = await this.#rpc.batch(outs.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, true] })));
    return outs.filter((_, j) => {
      const coin = coins[j];
      return !(coin instanceof RpcError) && !!coin && (coin as { confirmations: number }).confirmations >= 1;
    });
  }

  /** How many of `outs` the node no longer has unspent and confirmed (asked in batches). */
  async missing(outs: readonly HotOutput[]): Promise<number> {
    let gone = 0;
    for (let i = 0; i < outs.length; i += VERIFY_BATCH) {
      const chunk = outs.slice(i, i + VERIFY_BATCH);
      gone += chunk.length - (await this.#unspent(chunk)).length;
    }
    return gone;
  }

  /** The live hot wallet's balance (outputs found in the UTXO set first, where the node can scan). */
  async balance(now: Date): Promise<bigint> {
    await this.discover(now);
    return this.store.balance(this.chain, true);
  }
}
