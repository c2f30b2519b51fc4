// What a node's answer to eth_sendRawTransaction means for the transfer (pure). Nodes word their
// refusals differently (geth, anvil, Erigon, Nethermind, BSC's geth fork) but share these phrases.
import { RpcError } from '../../rpc/json-rpc.ts';
import type { BroadcastOutcome } from '../../transfers/types.ts';

const KNOWN = /already ?known|already imported|known transaction|already in (the )?(tx)?pool/i;
const NONCE_USED = /nonce too low|nonce has already been used|already been mined/i;
const NO_FUNDS = /insufficient funds/i;

export function broadcastOutcome(err: unknown): BroadcastOutcome {
  if (!(err instanceof RpcError)) return { kind: 'uncertain', why: (err as Error).message };
  const why = `the node refused it: ${err.message}`;
  if (KNOWN.test(err.message)) return { kind: 'accepted' };
  if (NONCE_USED.test(err.message)) return { kind: 'nonce_used', why };
  if (NO_FUNDS.test(err.message)) return { kind: 'no_funds', why };
  return { kind: 'refused', why };
}
