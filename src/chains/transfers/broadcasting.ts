// What a node's answer to a broadcast means when the node did not answer in its own words (Tron,
// XRP): a refusal it stated (an RpcError) is final for that transaction; anything else (no answer,
// a dropped connection) leaves it uncertain, to be looked for before it is signed again. And for
// every family: a refusal from a node the call moved on to proves nothing when a node before it
// failed to answer, since that one may have taken the transaction (its answer lost on the way).
import { RpcError } from '../rpc/json-rpc.ts';
import type { BroadcastOutcome } from './types.ts';

/** `send` reads the node's answer, filling `failures` as the call moves on; `node` names it in the reason ("the Tron node", "rippled"). */
export async function broadcastVia(node: string, send: (failures: string[]) => Promise<BroadcastOutcome>): Promise<BroadcastOutcome> {
  const failures: string[] = [];
  try {
    return afterFailover(await send(failures), failures);
  } catch (err) {
    if (err instanceof RpcError) return afterFailover({ kind: 'refused', why: `${node} refused it: ${err.message}` }, failures);
    return { kind: 'uncertain', why: (err as Error).message };
  }
}

/** A refusal (or "nonce used") after other nodes of the call failed to answer is uncertain: one of them may have it. */
export function afterFailover(out: BroadcastOutcome, failures: readonly string[]): BroadcastOutcome {
  if (failures.length === 0 || out.kind === 'accepted' || out.kind === 'uncertain') return out;
  return { kind: 'uncertain', why: `${out.why}, after ${failures.join('; ')}` };
}
