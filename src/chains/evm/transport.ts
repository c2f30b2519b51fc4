// viem over a chain's NodeEndpoints: every request of a viem client goes to the node in use and
// moves on to the next configured node when one fails. viem's own retries are off (the endpoints
// decide); an RpcError keeps its JSON-RPC `code`, which viem maps to its typed errors (nonce too
// low, insufficient funds, …).
import { custom, type CustomTransport } from 'viem';
import { callJsonRpc } from '../rpc/json-rpc.ts';
import type { NodeEndpoints } from '../rpc/endpoints.ts';

export function endpointsTransport(endpoints: NodeEndpoints, timeoutMs: number): CustomTransport {
  return custom(
    { request: ({ method, params }) => endpoints.use((url) => callJsonRpc(url, { method, params }, timeoutMs)) },
    { retryCount: 0 },
  );
}
