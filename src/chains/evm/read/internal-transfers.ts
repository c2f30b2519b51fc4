// Native coin moved by a contract's internal call (a multisig or payment contract sending ETH to a
// deposit address): invisible in the block's transactions and logs, seen in the node's call traces
// (debug_traceBlockByHash with the callTracer). A call frame that reverted moved nothing, nor did
// anything inside it; a transaction whose top frame reverted moved nothing at all. The top frame's
// own value is the transaction's, already counted from the block. Pure.
import type { TokenSymbol } from '../../../tokens/index.ts';
import type { ObservedTransfer } from '../../watch/types.ts';

export interface CallFrame {
  type?: string;
  from?: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: CallFrame[];
}

/** One entry of debug_traceBlockBy*: geth and anvil give `txHash`; older geth only the order of the block's transactions. */
export interface TxTrace { txHash?: string; result?: CallFrame; error?: string }

const HEX = /^0x[0-9a-fA-F]*$/;

/**
 * The internal value transfers of a block's traces (`txHashes`: the block's transactions in order),
 * and the transactions the node could not trace (it said why: pruned state, a replay it cannot
 * do). Throws on an answer that is not traces of that block.
 */
export function internalTransfers(traces: unknown, txHashes: readonly string[], native: TokenSymbol): { transfers: ObservedTransfer[]; untraced: string[] } {
  if (!Array.isArray(traces) || traces.length !== txHashes.length) throw new Error(`call traces: ${Array.isArray(traces) ? traces.length : 'no'} traces for ${txHashes.length} transactions`);
  const transfers: ObservedTransfer[] = [];
  const untraced: string[] = [];
  traces.forEach((t: TxTrace, i) => {
    if (typeof t !== 'object' || t === null) throw new Error(`call traces: trace ${i} is not an object`);
    const txId = t.txHash ?? txHashes[i];
    if (typeof txId !== 'string' || txId.toLowerCase() !== txHashes[i].toLowerCase()) throw new Error(`call traces: trace ${i} is of ${txId}, not ${txHashes[i]}`);
    if (!t.result || typeof t.result !== 'object') {
      if (typeof t.error !== 'string') throw new Error(`call traces: no trace of ${txId}`);
      untraced.push(txHashes[i]);
      return;
    }
    if (t.result.error) return;
    walk(t.result, (f) => transfers.push({ txId: txHashes[i], to: f.to!.toLowerCase(), token: native, amount: BigInt(f.value!), from: f.from?.toLowerCase() }));
  });
  return { transfers, untraced };
}

/** Calls `moved` for each successful subcall (at any depth under a successful parent) that moved value to an address. */
function walk(frame: CallFrame, moved: (f: CallFrame) => void): void {
  for (const sub of frame.calls ?? []) {
    if (sub.error) continue;
    const type = (sub.type ?? '').toUpperCase();
    // DELEGATECALL and STATICCALL move nothing (a delegatecall's value is its caller's); CALLCODE pays itself
    if ((type === 'CALL' || type === 'SELFDESTRUCT') && sub.to && sub.value && HEX.test(sub.value) && BigInt(sub.value) > 0n) moved(sub);
    walk(sub, moved);
  }
}
