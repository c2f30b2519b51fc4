import { describe, expect, it } from 'vitest';
import { internalTransfers, type CallFrame } from './internal-transfers.ts';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000Bb';
const C = '0x00000000000000000000000000000000000000cc';
const call = (to: string, value: string, more: Partial<CallFrame> = {}): CallFrame => ({ type: 'CALL', from: C, to, value, ...more });

describe('internalTransfers', () => {
  it('value of successful subcalls at any depth, in lower case; the top frame\'s own value is not one', () => {
    const top = call(C, '0x9', { calls: [call(A, '0x5', { calls: [call(B, '0x2')] }), call(A, '0x0')] });
    expect(internalTransfers([{ txHash: '0x1', result: top }], ['0x1'], 'ETH').transfers).toEqual([
      { txId: '0x1', to: A, token: 'ETH', amount: 5n, from: C },
      { txId: '0x1', to: B.toLowerCase(), token: 'ETH', amount: 2n, from: C },
    ]);
  });

  it('nothing from a reverted transaction, a reverted subcall or anything under it; nothing from delegate or static calls', () => {
    const reverted = call(C, '0x0', { error: 'execution reverted', calls: [call(A, '0x5')] });
    const inner = call(C, '0x0', { calls: [call(C, '0x5', { error: 'execution reverted', calls: [call(A, '0x5')] }), call(A, '0x7', { type: 'DELEGATECALL' }), call(A, '0x7', { type: 'STATICCALL' })] });
    expect(internalTransfers([{ txHash: '0x1', result: reverted }, { txHash: '0x2', result: inner }], ['0x1', '0x2'], 'BNB').transfers).toEqual([]);
  });

  it('a transaction the node could not trace is named, not guessed; traces without txHash follow the block\'s order', () => {
    const out = internalTransfers([{ error: 'invalid chain id for signer' }, { result: call(C, '0x0', { calls: [call(A, '0x1')] }) }], ['0x1', '0x2'], 'ETH');
    expect(out).toEqual({ untraced: ['0x1'], transfers: [{ txId: '0x2', to: A, token: 'ETH', amount: 1n, from: C }] });
  });

  it('an answer that is not the block\'s traces throws', () => {
    expect(() => internalTransfers({}, ['0x1'], 'ETH')).toThrow('call traces: no traces for 1 transactions');
    expect(() => internalTransfers([], ['0x1'], 'ETH')).toThrow('call traces: 0 traces for 1 transactions');
    expect(() => internalTransfers([{ txHash: '0x2', result: call(A, '0x0') }], ['0x1'], 'ETH')).toThrow('call traces: trace 0 is of 0x2, not 0x1');
    expect(() => internalTransfers([{ txHash: '0x1' }], ['0x1'], 'ETH')).toThrow('call traces: no trace of 0x1');
  });
});
