import { describe, expect, it } from 'vitest';
import { blockTransfers, TRANSFER_TOPIC, type RawBlock, type RawReceipt } from './transfers.ts';
import type { TokenSymbol } from '../../../tokens/index.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const topic = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}`;
const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;
const USDT = '0x00000000000000000000000000000000000000AA';
const contracts = new Map<string, TokenSymbol>([[USDT.toLowerCase(), 'USDT_ERC20']]);
const block = (txs: RawBlock['transactions']): RawBlock => ({ number: 5n, hash: '0xb', parentHash: '0xa', timestamp: 1n, transactions: txs });
const receipt = (hash: string, status: RawReceipt['status'], logs: RawReceipt['logs'] = []): RawReceipt => ({ transactionHash: hash, blockHash: '0xb', status, logs });
const transferLog = (contract: string, from: string, to: string, v: bigint) => ({ address: contract, topics: [TRANSFER_TOPIC, topic(from), topic(to)], data: word(v) });

describe('blockTransfers', () => {
  it('native value of a successful transaction, to its recipient in lower case', () => {
    const b = block([{ hash: '0x1', from: addr(1), to: '0x00000000000000000000000000000000000000Bc', value: 7n }]);
    expect(blockTransfers(b, [receipt('0x1', 'success')], 'ETH', contracts)).toEqual([
      { txId: '0x1', to: '0x00000000000000000000000000000000000000bc', token: 'ETH', amount: 7n, from: addr(1) },
    ]);
  });

  it('a reverted transaction moves nothing (neither its value nor its logs)', () => {
    const b = block([{ hash: '0x1', from: addr(1), to: USDT, value: 7n }]);
    expect(blockTransfers(b, [receipt('0x1', 'reverted', [transferLog(USDT, addr(1), addr(2), 5n)])], 'ETH', contracts)).toEqual([]);
  });

  it('Transfer logs of a configured contract only; sums per transaction, recipient and token', () => {
    const other = addr(0xcc);
    const b = block([{ hash: '0x1', from: addr(1), to: USDT, value: 0n }]);
    const logs = [transferLog(USDT, addr(1), addr(2), 5n), transferLog(USDT, addr(1), addr(2), 6n), transferLog(other, addr(1), addr(2), 100n), transferLog(USDT, addr(1), addr(3), 1n)];
    expect(blockTransfers(b, [receipt('0x1', 'success', logs)], 'ETH', contracts)).toEqual([
      { txId: '0x1', to: addr(2), token: 'USDT_ERC20', amount: 11n, from: addr(1) },
      { txId: '0x1', to: addr(3), token: 'USDT_ERC20', amount: 1n, from: addr(1) },
    ]);
  });

  it('ignores logs that are not a well-formed Transfer (other events, malformed topics or data, zero amounts)', () => {
    const b = block([{ hash: '0x1', from: addr(1), to: USDT, value: 0n }]);
    const logs = [
      { address: USDT, topics: ['0x' + '1'.repeat(64), topic(addr(1)), topic(addr(2))], data: word(5n) },
      { address: USDT, topics: [TRANSFER_TOPIC, topic(addr(1)), '0x' + 'f'.repeat(64)], data: word(5n) },
      { address: USDT, topics: [TRANSFER_TOPIC, topic(addr(1)), topic(addr(2))], data: '0x05' },
      transferLog(USDT, addr(1), addr(2), 0n),
      // four topics: another event with the same signature (an NFT's Transfer indexes its token id)
      { address: USDT, topics: [TRANSFER_TOPIC, topic(addr(1)), topic(addr(2)), word(7n)], data: word(5n) },
    ];
    expect(blockTransfers(b, [receipt('0x1', 'success', logs)], 'ETH', contracts)).toEqual([]);
  });
});
