// The Ethereum JSON-RPC calls the sending side makes, over the chain's NodeEndpoints (failover in
// the configured order). Quantities come back as bigint. A node's own error stays an RpcError (it
// answered: asking again changes nothing); NoNodeAnswered means nobody answered properly.
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { callJsonRpc } from '../../rpc/json-rpc.ts';
import type { NodeEndpoints } from '../../rpc/endpoints.ts';

export const RPC_TIMEOUT_MS = 10_000;

export interface EvmCall { from: string; to: string; value?: bigint; data?: Hex }

export interface EvmReceipt { transactionHash: string; blockNumber: bigint; status: boolean; gasUsed: bigint; effectiveGasPrice: bigint }

const hex = (n: bigint): string => `0x${n.toString(16)}`;
const big = (v: unknown): bigint => {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) throw new Error(`not a quantity: ${JSON.stringify(v)}`);
  return v === '0x' ? 0n : BigInt(v);
};

export class EvmRpc {
  readonly endpoints: NodeEndpoints;
  readonly #timeoutMs: number;

  constructor(endpoints: NodeEndpoints, timeoutMs = RPC_TIMEOUT_MS) {
    this.endpoints = endpoints;
    this.#timeoutMs = timeoutMs;
  }

  /** `failures`: filled with the transport failures of nodes tried before the one that answered. */
  call(method: string, params: unknown[] = [], failures?: string[]): Promise<unknown> {
    return this.endpoints.use((url) => callJsonRpc(url, { method, params }, this.#timeoutMs), failures);
  }

  async chainId(): Promise<number> {
    return Number(big(await this.call('eth_chainId')));
  }

  async blockNumber(): Promise<bigint> {
    return big(await this.call('eth_blockNumber'));
  }

  /** The latest block's base fee; null on a chain without EIP-1559. */
  async baseFee(): Promise<bigint | null> {
    const block = await this.call('eth_getBlockByNumber', ['latest', false]) as { baseFeePerGas?: string } | null;
    if (!block) throw new Error('the node has no latest block');
    return block.baseFeePerGas === undefined || block.baseFeePerGas === null ? null : big(block.baseFeePerGas);
  }

  async maxPriorityFee(): Promise<bigint> {
    return big(await this.call('eth_maxPriorityFeePerGas'));
  }

  async gasPrice(): Promise<bigint> {
    return big(await this.call('eth_gasPrice'));
  }

  async balance(address: string): Promise<bigint> {
    return big(await this.call('eth_getBalance', [address, 'latest']));
  }

  /** ERC-20 balanceOf; null when the contract has no code here (answers empty). */
  async tokenBalance(contract: string, address: string): Promise<bigint | null> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] });
    const out = await this.call('eth_call', [{ to: contract, data }, 'latest']);
    return out === '0x' ? null : big(out);
  }

  async estimateGas(c: EvmCall): Promise<bigint> {
    return big(await this.call('eth_estimateGas', [{ from: c.from, to: c.to, ...(c.value !== undefined ? { value: hex(c.value) } : {}), ...(c.data ? { data: c.data } : {}) }]));
  }

  /** Transactions sent from `address` in the best chain ('latest'), or as of block `at`. */
  async nonce(address: string, at?: bigint): Promise<bigint> {
    return big(await this.call('eth_getTransactionCount', [address, at === undefined ? 'latest' : hex(at)]));
  }

  async sendRaw(raw: string, failures?: string[]): Promise<string> {
    return await this.call('eth_sendRawTransaction', [raw], failures) as string;
  }

  async receipt(txId: string): Promise<EvmReceipt | null> {
    const r = await this.call('eth_getTransactionReceipt', [txId]) as Record<string, string> | null;
    if (!r || !r.blockNumber) return null;
    return {
      transactionHash: r.transactionHash, blockNumber: big(r.blockNumber), status: r.status === '0x1',
      gasUsed: big(r.gasUsed), effectiveGasPrice: big(r.effectiveGasPrice ?? '0x0'),
    };
  }

  async transactionKnown(txId: string): Promise<boolean> {
    return (await this.call('eth_getTransactionByHash', [txId])) !== null;
  }
}
