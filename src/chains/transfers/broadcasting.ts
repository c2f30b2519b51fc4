// What a node's answer to a broadcast means when the node did not answer in its own words (Tron,
// XRP): a refusal it stated (an RpcError) is final for that transaction; anything else (no answer,
// a dropped connection) leaves it uncertain, to be looked for before it is signed again.
import { RpcError } from '../rpc/json-rpc.ts';
import type { BroadcastOutcome } from './types.ts';

/** `send` reads the node's answer; `node` names it in the reason ("the Tron node", "rippled"). */
export async function broadcastVia(node: string, send: () => Promise<BroadcastOutcome>): Promise<BroadcastOutcome> {
  try {
    return await send();
  } catch (err) {
    if (err instanceof RpcError) return { kind: 'refused', why: `${node} refused it: ${err.message}` };
    return { kind: 'uncertain', why: (err as Error).message };
  }
}
