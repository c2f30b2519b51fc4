// Calls to a Bitcoin-family node over the chain's NodeEndpoints (failover between its URLs). The node
// needs no wallet: every call here is a chain or mempool call. Answers are read with their large
// amounts exact (parseNodeJson).
import { RpcError, batchJsonRpc, callJsonRpc } from '../rpc/json-rpc.ts';
import type { NodeEndpoints } from '../rpc/endpoints.ts';
import { parseNodeJson } from './coins.ts';

/** Bitcoin Core's RPC error codes the family reacts to. */
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_VERIFY_ERROR = -25;
export const RPC_VERIFY_REJECTED = -26;
export const RPC_VERIFY_ALREADY_IN_CHAIN = -27;

/** The node's answer that the thing asked for does not exist (unknown block or transaction, height out of range). */
const saysNotFound = (err: unknown): boolean =>
  err instanceof RpcError && (err.code === RPC_INVALID_ADDRESS_OR_KEY || err.code === RPC_INVALID_PARAMETER);

export class UtxoRpc {
  readonly nodes: NodeEndpoints;
  readonly #timeoutMs: number;

  constructor(nodes: NodeEndpoints, timeoutMs = 30_000) {
    this.nodes = nodes;
    this.#timeoutMs = timeoutMs;
  }

  /** `failures`: filled with the transport failures of nodes tried before the one that answered. */
  call<T>(method: string, params: unknown[] = [], failures?: string[]): Promise<T> {
    return this.nodes.use((url) => callJsonRpc(url, { method, params }, this.#timeoutMs, parseNodeJson), failures) as Promise<T>;
  }

  /** Several calls in one request; a call the node refused is an RpcError in its place. */
  batch(calls: ReadonlyArray<{ method: string; params: unknown[] }>): Promise<Array<unknown | RpcError>> {
    return this.nodes.use((url) => batchJsonRpc(url, calls, this.#timeoutMs, parseNodeJson));
  }

  /** `call`, with null where the node says the thing does not exist (unknown block or transaction, height out of range). */
  async maybe<T>(method: string, params: unknown[] = []): Promise<T | null> {
    try {
      return await this.call<T>(method, params);
    } catch (err) {
      if (saysNotFound(err)) return null;
      throw err;
    }
  }

  /**
   * `maybe` for many calls, `perRequest` to a batch request: each answer in its call's place, null
   * where the node says the thing does not exist; any other refusal fails the whole read.
   */
  async maybeEach<T>(calls: ReadonlyArray<{ method: string; params: unknown[] }>, perRequest: number): Promise<Array<T | null>> {
    const out: Array<T | null> = [];
    for (let i = 0; i < calls.length; i += perRequest) {
      for (const a of await this.batch(calls.slice(i, i + perRequest))) {
        if (a instanceof RpcError && !saysNotFound(a)) throw a;
        out.push(a instanceof RpcError ? null : (a as T | null));
      }
    }
    return out;
  }
}
