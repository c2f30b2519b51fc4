// Bitcoin, Litecoin and Dogecoin for the chain watcher (ChainReader): blocks with their transfers
// (outputs summed per transaction and address), the mempool as deposits with 0 confirmations, and
// where a transaction stands after a reorganisation or a double spend. Only chain and mempool calls:
// the node needs no wallet (and for Dogecoin 1.14, whose getblock lists only transaction ids, it
// needs -txindex so getrawtransaction finds them).
import type { UtxoChain, UtxoNetwork, UtxoNetworkKind } from '../addresses/index.ts';
import { UTXO_NETWORKS, setLiveNetwork } from '../addresses/index.ts';
import { redactUrl, RpcError } from '../rpc/json-rpc.ts';
import type { BlockRef, ChainBlock, ChainReader, ObservedTransfer, TxState } from '../watch/types.ts';
import { UTXO_COINS, networkOfGenesis, type UtxoCoin } from './coins.ts';
import { blockTransfers, inBestChain, inputsOf, scriptAddress, transfersOfTx, type NodeBlock, type NodeBlockHeader, type NodeTx } from './node-shapes.ts';
import type { UtxoRpc } from './rpc.ts';

/** Calls per JSON-RPC batch (getrawtransaction of Dogecoin blocks and new mempool transactions, gettxout of a transaction's inputs). */
const BATCH = 250;
/** Inputs of transactions that left the mempool, kept to tell a replaced one when the node has no txindex. */
const RECENT_INPUTS = 20_000;

/** The node serves another coin (or a network of it nobody knows): the chain must not be followed from it. */
export class WrongNetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WrongNetworkError';
  }
}

interface Pooled { transfers: ObservedTransfer[]; inputs: Array<{ txid: string; vout: number }> }

export class UtxoReader implements ChainReader {
  readonly chain: UtxoChain;
  readonly coin: UtxoCoin;
  readonly #rpc: UtxoRpc;
  #kind: UtxoNetworkKind | null = null;
  readonly #pool = new Map<string, Pooled>();
  readonly #recentInputs = new Map<string, Pooled['inputs']>();

  constructor(chain: UtxoChain, rpc: UtxoRpc) {
    this.chain = chain;
    this.coin = UTXO_COINS[chain];
    this.#rpc = rpc;
  }

  /**
   * `getblockchaininfo`'s chain (main, test, regtest…), after checking by the genesis block that the
   * node serves this coin. Live addresses of the chain follow the network it reports.
   */
  async network(): Promise<string> {
    const [genesis, info] = await Promise.all([
      this.#rpc.call<string>('getblockhash', [0]),
      this.#rpc.call<{ chain: string }>('getblockchaininfo'),
    ]);
    const kind = networkOfGenesis(this.coin, genesis);
    if (!kind) {
      throw new WrongNetworkError(`the node at ${redactUrl(this.#rpc.nodes.current)} is not a ${this.chain} node (its genesis block is ${genesis}, chain "${info.chain}")`);
    }
    this.#kind = kind;
    setLiveNetwork(this.chain, kind);
    return info.chain;
  }

  /** The address bytes of the node's network (asked once, on first use). */
  async #network(): Promise<UtxoNetwork> {
    if (!this.#kind) await this.network();
    return UTXO_NETWORKS[this.chain][this.#kind!];
  }

  readonly #normalize = (address: string): string => this.normalizeAddress(address);

  normalizeAddress(address: string): string {
    // the scan's common case (a node writes bech32 in lower case): checked without a new string
    if (!hasUpperCase(address)) return address;
    // bech32 is case-insensitive and written in lower case; base58 is case-sensitive
    const hrp = UTXO_NETWORKS[this.chain][this.#kind ?? 'main'].hrp;
    const lower = address.toLowerCase();
    return hrp && /^[a-z]+1/.test(lower) ? lower : address;
  }

  async head(): Promise<BlockRef> {
    const hash = await this.#rpc.call<string>('getbestblockhash');
    return refOf(await this.#rpc.call<NodeBlockHeader>('getblockheader', [hash, true]));
  }

  async header(height: bigint): Promise<BlockRef | null> {
    const hash = await this.#rpc.maybe<string>('getblockhash', [Number(height)]);
    if (hash === null) return null;
    const h = await this.#rpc.maybe<NodeBlockHeader>('getblockheader', [hash, true]);
    return h ? refOf(h) : null;
  }

  async block(height: bigint): Promise<ChainBlock | null> {
    const network = await this.#network();
    const read = await this.#blockAt(height);
    return read && { ...refOf(read.block), transfers: blockTransfers(read.txs, network, this.coin.token, this.#normalize) };
  }

  /**
   * The sender of matched transfers the block or mempool did not name (no `prevout` before Bitcoin
   * Core 23): the address of the output the transaction's first input spends, read by id (-txindex).
   * A transaction or output that cannot be read leaves the transfer without a sender.
   */
  async senders(transfers: ObservedTransfer[]): Promise<void> {
    const missing = transfers.filter((t) => t.from === undefined);
    if (missing.length === 0) return;
    try {
      const network = await this.#network();
      const read = async (ids: string[]): Promise<Map<string, NodeTx>> => {
        const found = new Map<string, NodeTx>();
        (await this.#rawTransactions(ids)).forEach((a, i) => { if (a && !(a instanceof RpcError)) found.set(ids[i], a); });
        return found;
      };
      const txs = await read([...new Set(missing.map((t) => t.txId))]);
      const firstInput = new Map<string, { txid: string; vout: number }>();
      for (const [id, tx] of txs) {
        const input = inputsOf(tx)[0];
        if (input && tx.vin[0]?.txid === input.txid) firstInput.set(id, input);
      }
      const spent = await read([...new Set([...firstInput.values()].map((i) => i.txid))]);
      for (const t of missing) {
        const input = firstInput.get(t.txId);
        const out = input && spent.get(input.txid)?.vout.find((v) => v.n === input.vout);
        const address = out ? scriptAddress(network, out.scriptPubKey) : null;
        if (address) t.from = this.#normalize(address);
      }
    } catch {
      // the sender is a detail of the trail: a node that cannot answer never holds a deposit back
    }
  }

  /** The whole transactions of the block at a height (which one spends an output); null when there is none. */
  async transactionsAt(height: bigint): Promise<NodeTx[] | null> {
    return (await this.#blockAt(height))?.txs ?? null;
  }

  async #blockAt(height: bigint): Promise<{ block: NodeBlock; txs: NodeTx[] } | null> {
    const hash = await this.#rpc.maybe<string>('getblockhash', [Number(height)]);
    if (hash === null) return null;
    const block = await this.#rpc.maybe<NodeBlock>('getblock', [hash, this.coin.blockVerbosity2 ? 2 : true]);
    if (!block) return null; // replaced between the two calls: the caller asks again
    const txs = block.tx.length > 0 && typeof block.tx[0] === 'string' ? await this.#transactions(block.tx as string[], hash) : block.tx as NodeTx[];
    return { block, txs };
  }

  /** `getrawtransaction` of each id, in batches: the node's answer or its error, in the order of `ids`. */
  async #rawTransactions(ids: readonly string[]): Promise<Array<NodeTx | RpcError>> {
    const out: Array<NodeTx | RpcError> = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      out.push(...await this.#rpc.batch(ids.slice(i, i + BATCH).map((id) => ({ method: 'getrawtransaction', params: [id, 1] }))) as Array<NodeTx | RpcError>);
    }
    return out;
  }

  /** Full transactions of a block that listed only their ids (Dogecoin 1.14). */
  async #transactions(ids: readonly string[], blockHash: string): Promise<NodeTx[]> {
    return (await this.#rawTransactions(ids)).map((a, i) => {
      if (a instanceof RpcError) throw new Error(`transaction ${ids[i]} of block ${blockHash} could not be read (is -txindex on?): ${a.message}`);
      return a;
    });
  }

  /** Transfers of the transactions in the node's mempool; each transaction is read once while it stays there. */
  async pending(): Promise<ObservedTransfer[]> {
    const network = await this.#network();
    const ids = await this.#rpc.call<string[]>('getrawmempool');
    const now = new Set(ids);
    for (const [id, p] of this.#pool) {
      if (now.has(id)) continue;
      this.#pool.delete(id);
      this.#remember(id, p.inputs);
    }
    const fresh = ids.filter((id) => !this.#pool.has(id));
    const normalize = this.#normalize;
    for (const tx of await this.#rawTransactions(fresh)) {
      // mined or replaced since getrawmempool: the next look finds it where it is
      if (tx instanceof RpcError) continue;
      this.#pool.set(tx.txid, { transfers: transfersOfTx(tx, network, this.coin.token, normalize), inputs: inputsOf(tx) });
    }
    return [...this.#pool.values()].flatMap((p) => p.transfers);
  }

  #remember(txid: string, inputs: Pooled['inputs']): void {
    this.#recentInputs.set(txid, inputs);
    if (this.#recentInputs.size > RECENT_INPUTS) this.#recentInputs.delete(this.#recentInputs.keys().next().value!);
  }

  /**
   * Mined (in the best chain), pending (in the mempool), conflicted (an input it spends is spent by
   * another transaction, mined or in the mempool: a double spend or an RBF replacement, so it can
   * never count), or unknown (its block left the best chain and it may still come back).
   */
  async txState(txId: string): Promise<TxState> {
    const tx = await this.#rpc.maybe<NodeTx>('getrawtransaction', [txId, 1]);
    if (inBestChain(tx)) {
      const h = await this.#rpc.call<NodeBlockHeader>('getblockheader', [tx.blockhash, true]);
      return { kind: 'mined', height: BigInt(h.height), blockHash: h.hash };
    }
    // the node answers from its mempool first: no block hash means it is there
    if (tx && !tx.blockhash) return { kind: 'pending' };
    const inputs = tx ? inputsOf(tx) : this.#recentInputs.get(txId) ?? this.#pool.get(txId)?.inputs;
    if (!inputs || inputs.length === 0) return { kind: 'unknown' };
    return await this.#spentElsewhere(inputs) ? { kind: 'conflicted' } : { kind: 'unknown' };
  }

  /**
   * Whether an outpoint of a transaction that is still real (mined or pooled) is spent (by another,
   * since ours is in neither). Every outpoint is asked in one batch, then the parents of the spent
   * ones in another: a deposit of many inputs costs two round trips, not one or two per input.
   */
  async #spentElsewhere(inputs: ReadonlyArray<{ txid: string; vout: number }>): Promise<boolean> {
    const unspent = await this.#rpc.maybeEach<unknown>(inputs.map((i) => ({ method: 'gettxout', params: [i.txid, i.vout, true] })), BATCH);
    const spentParents = [...new Set(inputs.filter((_, k) => unspent[k] === null).map((i) => i.txid))];
    if (spentParents.length === 0) return false;
    const parents = await this.#rpc.maybeEach<NodeTx>(spentParents.map((id) => ({ method: 'getrawtransaction', params: [id, 1] })), BATCH);
    return parents.some((parent) => parent !== null && (!parent.blockhash || (parent.confirmations ?? 0) > 0));
  }
}

function hasUpperCase(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

function refOf(h: NodeBlockHeader): BlockRef {
  return {
    height: BigInt(h.height), hash: h.hash,
    // the genesis block has no parent: zeroes, as in its header
    parentHash: h.previousblockhash ?? '0'.repeat(64),
    time: new Date(h.time * 1000),
  };
}
