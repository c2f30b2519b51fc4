// How the EVM reader learns which transactions of a block succeeded. The fast way is one
// eth_getBlockReceipts call for the block; not every node has it (older clients, some providers
// answer "method not found"). Such a node is remembered (per URL, the node in use may change) and
// read the other way: the block's token `Transfer` logs of the watched contracts in one eth_getLogs
// (only a successful transaction leaves logs), and a receipt per transaction only for the native
// transfers that go to watched addresses (the watcher asks through ChainBlock.unchecked). Native
// coin moved by internal calls comes from the node's call traces when it has them
// (internal-transfers.ts); a node without debug_traceBlockByHash is remembered too, logged once:
// on it such transfers are not seen.
import type { PublicClient } from 'viem';
import type { Logger } from '../../../platform/logger.ts';
import type { TokenSymbol } from '../../../tokens/index.ts';
import type { NodeEndpoints } from '../../rpc/endpoints.ts';
import { RpcError, causeChain, methodUnsupported } from '../../rpc/json-rpc.ts';
import type { ChainBlock, ObservedTransfer } from '../../watch/types.ts';
import { internalTransfers } from './internal-transfers.ts';
import { blockTransfers, logTransfer, nativeTransfer, sumTransfers, TRANSFER_TOPIC, type RawBlock, type RawLog } from './transfers.ts';

/** The node answered with a JSON-RPC error (as opposed to not answering at all). */
function answeredByNode(err: unknown): boolean {
  return [...causeChain(err)].some((e) => e instanceof RpcError);
}

type Way = 'block_receipts' | 'logs';

export class BlockOutcomes {
  readonly #client: PublicClient;
  readonly #endpoints: NodeEndpoints;
  readonly #native: TokenSymbol;
  readonly #log: Logger | undefined;
  readonly #ways = new Map<string, Way>();
  /** URLs whose node has no call tracer. */
  readonly #untraced = new Set<string>();

  constructor(client: PublicClient, endpoints: NodeEndpoints, native: TokenSymbol, log?: Logger) {
    this.#client = client;
    this.#endpoints = endpoints;
    this.#native = native;
    this.#log = log;
  }

  /** How the node at `url` is read (undefined until a block with transactions was read from it). */
  wayOf(url: string): Way | undefined {
    return this.#ways.get(url);
  }

  /** Whether the node at `url` gave call traces (false once it refused them). */
  traces(url: string): boolean {
    return !this.#untraced.has(url);
  }

  /** The transfers of `block` (its transactions included), with `contracts` the watched token contracts. */
  async transfers(block: RawBlock & { hash: string }, contracts: ReadonlyMap<string, TokenSymbol>): Promise<Pick<ChainBlock, 'transfers' | 'unchecked'>> {
    if (block.transactions.length === 0) return { transfers: [] };
    const [direct, internal] = await Promise.all([this.#direct(block, contracts), this.#internal(block)]);
    return internal.length === 0 ? direct : { ...direct, transfers: sumTransfers([...direct.transfers, ...internal]) };
  }

  /** Value moved by internal calls, from the node's call traces; none on a node without them. */
  async #internal(block: RawBlock & { hash: string }): Promise<ObservedTransfer[]> {
    const url = this.#endpoints.current;
    if (this.#untraced.has(url)) return [];
    let traces: unknown;
    try {
      traces = await this.#client.request({ method: 'debug_traceBlockByHash' as never, params: [block.hash, { tracer: 'callTracer' }] as never });
    } catch (err) {
      if (methodUnsupported(err)) {
        this.#untraced.add(url);
        this.#log?.warn({ node: this.#endpoints.index }, 'chain watch: the node has no call tracer (debug_traceBlockByHash); coins moved to deposit addresses by a contract\'s internal call are not seen on it');
        return [];
      }
      // The node answered that it cannot trace this block (a pruned node keeps the state of recent
      // blocks only: catching up after a long outage). Waiting would stall the chain for good: its
      // internal transfers are given up, said at warn. A node that did not answer fails the pass.
      if (!answeredByNode(err)) throw err;
      this.#log?.warn({ block: Number(block.number), err: (err as Error).message }, 'chain watch: the node cannot trace this block; coins moved by internal calls in it are not seen');
      return [];
    }
    const { transfers, untraced } = internalTransfers(traces, block.transactions.map((tx) => tx.hash), this.#native);
    if (untraced.length > 0) this.#log?.warn({ block: Number(block.number), transactions: untraced }, 'chain watch: the node could not trace these transactions; coins moved by internal calls in them are not seen');
    return transfers;
  }

  async #direct(block: RawBlock & { hash: string }, contracts: ReadonlyMap<string, TokenSymbol>): Promise<Pick<ChainBlock, 'transfers' | 'unchecked'>> {
    const url = this.#endpoints.current;
    if (this.#ways.get(url) !== 'logs') {
      try {
        const receipts = await this.#client.getBlockReceipts({ blockHash: block.hash as `0x${string}` });
        if (receipts.some((r) => r.blockHash !== block.hash) || receipts.length !== block.transactions.length) {
          throw new Error(`receipts of block ${block.number} do not match its ${block.transactions.length} transactions`);
        }
        this.#ways.set(url, 'block_receipts');
        return { transfers: blockTransfers(block, receipts, this.#native, contracts) };
      } catch (err) {
        if (!methodUnsupported(err)) throw err;
        this.#ways.set(url, 'logs');
        this.#log?.warn({ node: this.#endpoints.index }, 'chain watch: the node has no eth_getBlockReceipts; reading token logs and per-transaction receipts instead');
      }
    }
    return this.#byLogs(block, contracts);
  }

  async #byLogs(block: RawBlock & { hash: string }, contracts: ReadonlyMap<string, TokenSymbol>): Promise<Pick<ChainBlock, 'transfers' | 'unchecked'>> {
    const logs = contracts.size === 0 ? [] : await this.#client.request({
      method: 'eth_getLogs',
      params: [{ blockHash: block.hash as `0x${string}`, address: [...contracts.keys()] as `0x${string}`[], topics: [TRANSFER_TOPIC as `0x${string}`] }],
    }) as Array<RawLog & { transactionHash: string; blockHash: string; removed?: boolean }>;
    const tokens: ObservedTransfer[] = [];
    for (const log of logs) {
      if (log.blockHash !== block.hash || log.removed) throw new Error(`logs of block ${block.number} answered for another block`);
      const t = logTransfer(log.transactionHash, log, contracts);
      if (t) tokens.push(t);
    }
    const natives = block.transactions.map((tx) => nativeTransfer(tx, this.#native)).filter((t): t is ObservedTransfer => t !== null);
    return {
      transfers: sumTransfers(tokens),
      unchecked: { transfers: natives, succeeded: (matched) => this.#succeeded(block.hash, matched) },
    };
  }

  /** The transfers among `matched` whose transaction succeeded in block `blockHash` (one receipt per transaction). */
  async #succeeded(blockHash: string, matched: ObservedTransfer[]): Promise<ObservedTransfer[]> {
    const ids = [...new Set(matched.map((t) => t.txId))];
    const receipts = await Promise.all(ids.map((hash) => this.#client.getTransactionReceipt({ hash: hash as `0x${string}` })));
    const ok = new Set<string>();
    for (const r of receipts) {
      // the block was replaced between the two reads: the pass fails and reads it again
      if (r.blockHash !== blockHash) throw new Error(`the receipt of ${r.transactionHash} is of another block than ${blockHash}`);
      if (r.status === 'success') ok.add(r.transactionHash);
    }
    return matched.filter((t) => ok.has(t.txId));
  }
}
