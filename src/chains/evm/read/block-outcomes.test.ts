import { describe, expect, it } from 'vitest';
import { MethodNotFoundRpcError, MethodNotSupportedRpcError, InternalRpcError } from 'viem';
import type { PublicClient } from 'viem';
import { BlockOutcomes } from './block-outcomes.ts';
import { methodUnsupported, RpcError } from '../../rpc/json-rpc.ts';
import { NodeEndpoints } from '../../rpc/endpoints.ts';
import type { Logger } from '../../../platform/logger.ts';
import type { TokenSymbol } from '../../../tokens/index.ts';
import { TRANSFER_TOPIC, type RawLog, type RawReceipt } from './transfers.ts';

describe('methodUnsupported', () => {
  it('JSON-RPC "method not found" and "not supported", as viem wraps them or as the node answered', () => {
    expect(methodUnsupported(new MethodNotFoundRpcError(new Error('x')))).toBe(true);
    expect(methodUnsupported(new MethodNotSupportedRpcError(new Error('x')))).toBe(true);
    expect(methodUnsupported(new RpcError(-32601, 'Method not found'))).toBe(true);
  });

  it('a node that says so in words under another code (-32000, as some clients and providers do)', () => {
    expect(methodUnsupported(new RpcError(-32000, 'the method eth_getBlockReceipts does not exist/is not available'))).toBe(true);
    expect(methodUnsupported(new RpcError(-32603, 'Unsupported method: eth_getBlockReceipts'))).toBe(true);
    expect(methodUnsupported(new Error('outer', { cause: new RpcError(-32000, 'method not supported') }))).toBe(true);
  });

  it('other failures are not', () => {
    expect(methodUnsupported(new InternalRpcError(new Error('boom')))).toBe(false);
    expect(methodUnsupported(new RpcError(-32000, 'header not found'))).toBe(false);
    expect(methodUnsupported(new Error('fetch failed'))).toBe(false);
  });
});

// A small JSON-RPC node: answers the reader's calls from fixed data and records what was asked.
interface FakeNodeData {
  blockReceipts?: RawReceipt[] | Error;
  logs?: Array<RawLog & { transactionHash: string; blockHash: string; removed?: boolean }>;
  receipts?: Record<string, RawReceipt>;
  traces?: unknown;
}

class FakeNode {
  readonly asked: string[] = [];
  data: FakeNodeData;
  constructor(data: FakeNodeData) {
    this.data = data;
  }

  async getBlockReceipts(_: { blockHash: string }): Promise<RawReceipt[]> {
    this.asked.push('eth_getBlockReceipts');
    const r = this.data.blockReceipts;
    if (r instanceof Error || r === undefined) throw r ?? new MethodNotFoundRpcError(new Error('eth_getBlockReceipts'));
    return r;
  }

  async getTransactionReceipt({ hash }: { hash: string }): Promise<RawReceipt> {
    this.asked.push(`eth_getTransactionReceipt ${hash}`);
    const r = this.data.receipts?.[hash];
    if (!r) throw new Error(`no receipt of ${hash}`);
    return r;
  }

  async request({ method }: { method: string; params: unknown }): Promise<unknown> {
    this.asked.push(method);
    if (method === 'eth_getLogs') return this.data.logs ?? [];
    if (method === 'debug_traceBlockByHash') {
      if (this.data.traces instanceof Error) throw this.data.traces;
      return this.data.traces ?? this.#noInternalCalls();
    }
    throw new Error(`unexpected ${method}`);
  }

  #noInternalCalls(): unknown {
    return BLOCK.transactions.map((tx) => ({ txHash: tx.hash, result: { type: 'CALL', to: tx.to, value: '0x0' } }));
  }
}

const HASH = '0xb1';
const TOKEN = '0x00000000000000000000000000000000000000c0';
const ALICE = '0x00000000000000000000000000000000000000a1';
const BOB = '0x00000000000000000000000000000000000000b0';
const SENDER = '0x00000000000000000000000000000000000000f0';
const topic = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}`;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
const CONTRACTS = new Map([[TOKEN, 'USDT_ERC20' as TokenSymbol]]);
/** 0x1: 5 wei to Alice (succeeded); 0x2: 7 wei to Bob (reverted); 0x3: a token transfer of 9 to Alice (succeeded). */
const BLOCK = {
  number: 100n, hash: HASH, parentHash: '0xb0', timestamp: 0n, transactions: [
    { hash: '0x1', from: SENDER, to: ALICE, value: 5n },
    { hash: '0x2', from: SENDER, to: BOB, value: 7n },
    { hash: '0x3', from: SENDER, to: TOKEN, value: 0n },
  ],
};
const tokenLog = { address: TOKEN, topics: [TRANSFER_TOPIC, topic(SENDER), topic(ALICE)], data: word(9n) };
const receipt = (hash: string, status: 'success' | 'reverted', logs: RawLog[] = []): RawReceipt => ({ transactionHash: hash, blockHash: HASH, status, logs });
const RECEIPTS = [receipt('0x1', 'success'), receipt('0x2', 'reverted'), receipt('0x3', 'success', [tokenLog])];
const alice = (txId: string, token: TokenSymbol, amount: bigint) => ({ txId, to: ALICE, token, amount, from: SENDER });
const bob = { txId: '0x2', to: BOB, token: 'ETH' as TokenSymbol, amount: 7n, from: SENDER };

function reader(node: FakeNode, urls = ['http://node-a', 'http://node-b']) {
  const warnings: string[] = [];
  const log = { warn: (_: unknown, msg: string) => warnings.push(msg) } as unknown as Logger;
  const endpoints = new NodeEndpoints(urls);
  return { outcomes: new BlockOutcomes(node as unknown as PublicClient, endpoints, 'ETH', log), endpoints, warnings };
}

describe('BlockOutcomes: a node without eth_getBlockReceipts', () => {
  const byLogs = () => new FakeNode({
    blockReceipts: new MethodNotFoundRpcError(new Error('eth_getBlockReceipts')),
    logs: [{ ...tokenLog, transactionHash: '0x3', blockHash: HASH }],
    receipts: Object.fromEntries(RECEIPTS.map((r) => [r.transactionHash, r])),
  });

  it('is read by token logs, its native transfers left to check one receipt per matched transaction', async () => {
    const node = byLogs();
    const { outcomes, warnings } = reader(node);
    const out = await outcomes.transfers(BLOCK, CONTRACTS);
    expect(outcomes.wayOf('http://node-a')).toBe('logs');
    expect(out.transfers).toEqual([alice('0x3', 'USDT_ERC20', 9n)]);
    expect(out.unchecked?.transfers).toEqual([alice('0x1', 'ETH', 5n), bob]);
    // the watcher matched both: only the one whose transaction succeeded moved value
    expect(await out.unchecked!.succeeded([alice('0x1', 'ETH', 5n), bob])).toEqual([alice('0x1', 'ETH', 5n)]);
    expect(node.asked.filter((m) => m.startsWith('eth_getTransactionReceipt'))).toEqual(['eth_getTransactionReceipt 0x1', 'eth_getTransactionReceipt 0x2']);
    expect(warnings.filter((w) => w.includes('no eth_getBlockReceipts'))).toHaveLength(1);
  });

  it('is remembered per URL: not asked for block receipts again, while another node is asked', async () => {
    const node = byLogs();
    const { outcomes, endpoints, warnings } = reader(node);
    await outcomes.transfers(BLOCK, CONTRACTS);
    await outcomes.transfers(BLOCK, CONTRACTS);
    expect(node.asked.filter((m) => m === 'eth_getBlockReceipts')).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('no eth_getBlockReceipts'))).toHaveLength(1);
    endpoints.skip('test');
    node.data.blockReceipts = RECEIPTS;
    expect((await outcomes.transfers(BLOCK, CONTRACTS)).transfers).toEqual([alice('0x1', 'ETH', 5n), alice('0x3', 'USDT_ERC20', 9n)]);
    expect(outcomes.wayOf('http://node-b')).toBe('block_receipts');
    expect(outcomes.wayOf('http://node-a')).toBe('logs');
  });

  it('asks no logs when no token contract is watched', async () => {
    const node = byLogs();
    const out = await reader(node).outcomes.transfers(BLOCK, new Map());
    expect(out.transfers).toEqual([]);
    expect(node.asked).not.toContain('eth_getLogs');
  });

  it('a log or a receipt of another block fails the pass (the block was replaced between reads)', async () => {
    const node = byLogs();
    node.data.logs = [{ ...tokenLog, transactionHash: '0x3', blockHash: '0xother' }];
    await expect(reader(node).outcomes.transfers(BLOCK, CONTRACTS)).rejects.toThrow('logs of block 100 answered for another block');
    const replaced = byLogs();
    replaced.data.receipts!['0x1'] = { ...RECEIPTS[0], blockHash: '0xother' };
    const out = await reader(replaced).outcomes.transfers(BLOCK, CONTRACTS);
    await expect(out.unchecked!.succeeded([alice('0x1', 'ETH', 5n)])).rejects.toThrow(`the receipt of 0x1 is of another block than ${HASH}`);
  });

  it('any other failure of eth_getBlockReceipts fails the pass and is not taken for a missing method', async () => {
    const node = new FakeNode({ blockReceipts: new Error('fetch failed') });
    const { outcomes } = reader(node);
    await expect(outcomes.transfers(BLOCK, CONTRACTS)).rejects.toThrow('fetch failed');
    expect(outcomes.wayOf('http://node-a')).toBeUndefined();
    node.data.blockReceipts = RECEIPTS.slice(0, 2);
    await expect(outcomes.transfers(BLOCK, CONTRACTS)).rejects.toThrow('receipts of block 100 do not match its 3 transactions');
  });

  it('an empty block asks the node nothing', async () => {
    const node = byLogs();
    expect(await reader(node).outcomes.transfers({ ...BLOCK, transactions: [] }, CONTRACTS)).toEqual({ transfers: [] });
    expect(node.asked).toEqual([]);
  });
});

describe('BlockOutcomes: internal transfers from the call tracer', () => {
  const traced = (traces: unknown) => new FakeNode({ blockReceipts: RECEIPTS, traces });
  const internalToAlice = [
    { txHash: '0x1', result: { type: 'CALL', to: ALICE, value: '0x5', calls: [{ type: 'CALL', from: SENDER, to: ALICE, value: '0x3' }] } },
    { txHash: '0x2', result: { type: 'CALL', to: BOB, value: '0x7', error: 'execution reverted' } },
    { txHash: '0x3', result: { type: 'CALL', to: TOKEN, value: '0x0', calls: [{ type: 'CALL', from: TOKEN, to: BOB, value: '0x4' }] } },
  ];

  it('adds value moved by internal calls to the direct transfers, summed per transaction and address', async () => {
    const { outcomes } = reader(traced(internalToAlice));
    expect((await outcomes.transfers(BLOCK, CONTRACTS)).transfers).toEqual([
      alice('0x1', 'ETH', 8n), alice('0x3', 'USDT_ERC20', 9n), { txId: '0x3', to: BOB, token: 'ETH', amount: 4n, from: TOKEN },
    ]);
    expect(outcomes.traces('http://node-a')).toBe(true);
  });

  it('a node without debug_traceBlockByHash is remembered (asked once, said once) and its blocks read without internal transfers', async () => {
    const node = traced(new RpcError(-32601, 'the method debug_traceBlockByHash does not exist/is not available'));
    const { outcomes, warnings } = reader(node);
    expect((await outcomes.transfers(BLOCK, CONTRACTS)).transfers).toEqual([alice('0x1', 'ETH', 5n), alice('0x3', 'USDT_ERC20', 9n)]);
    await outcomes.transfers(BLOCK, CONTRACTS);
    expect(outcomes.traces('http://node-a')).toBe(false);
    expect(node.asked.filter((m) => m === 'debug_traceBlockByHash')).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('no call tracer'))).toHaveLength(1);
  });

  it('a node that answers it cannot trace this block gives up that block\'s internal transfers only, at warn', async () => {
    const node = traced(new RpcError(-32000, 'required historical state unavailable'));
    const { outcomes, warnings } = reader(node);
    expect((await outcomes.transfers(BLOCK, CONTRACTS)).transfers).toEqual([alice('0x1', 'ETH', 5n), alice('0x3', 'USDT_ERC20', 9n)]);
    expect(warnings).toEqual(['chain watch: the node cannot trace this block; coins moved by internal calls in it are not seen']);
    node.data.traces = internalToAlice;
    expect((await outcomes.transfers(BLOCK, CONTRACTS)).transfers[0]).toEqual(alice('0x1', 'ETH', 8n));
    expect(outcomes.traces('http://node-a')).toBe(true);
  });

  it('the same answer wrapped by viem (the RpcError as a cause) is still the node\'s', async () => {
    const node = traced(new Error('RPC Request failed.', { cause: new RpcError(-32000, 'required historical state unavailable') }));
    expect((await reader(node).outcomes.transfers(BLOCK, CONTRACTS)).transfers).toHaveLength(2);
  });

  it('a node that does not answer the trace fails the pass', async () => {
    await expect(reader(traced(new Error('fetch failed'))).outcomes.transfers(BLOCK, CONTRACTS)).rejects.toThrow('fetch failed');
  });

  it('transactions the node could not trace are said at warn, the others\' internal transfers kept', async () => {
    const { outcomes, warnings } = reader(traced([internalToAlice[0], { txHash: '0x2', error: 'replay failed' }, internalToAlice[2]]));
    expect((await outcomes.transfers(BLOCK, CONTRACTS)).transfers[0]).toEqual(alice('0x1', 'ETH', 8n));
    expect(warnings).toEqual(['chain watch: the node could not trace these transactions; coins moved by internal calls in them are not seen']);
  });
});
