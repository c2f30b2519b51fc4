// java-tron's HTTP API over a chain's NodeEndpoints: `POST /wallet/<name>` on the full node,
// `/walletsolidity/<name>` on the solidity endpoints (TRON_SOLIDITY_URL, or the same nodes). Bodies
// and answers are JSON with hex (41…) addresses. An answer with java-tron's `Error` field is an
// RpcError (the node refused the request); no answer or one that is not JSON is a TransportError.
import { postJson, RpcError, TransportError, redactUrl } from '../rpc/json-rpc.ts';
import type { NodeEndpoints } from '../rpc/endpoints.ts';
import { decodeBase58Check, encodeBase58Check } from '../addresses/encoding.ts';
import { TRON_PREFIX } from '../addresses/networks.ts';

export const TRON_RPC_TIMEOUT_MS = 10_000;

export type TronAnswer = Record<string, unknown>;

/** Hex form (41…, lower case) of a base58 or hex Tron address; null when it is neither. */
export function tronHex(address: string): string | null {
  if (/^41[0-9a-fA-F]{40}$/.test(address)) return address.toLowerCase();
  const d = decodeBase58Check(address);
  return d && d.version === TRON_PREFIX ? `41${Buffer.from(d.payload).toString('hex')}` : null;
}

/** Base58check form (T…) of a hex address (41… or the 20 bytes without the prefix). */
export function tronBase58(hex: string): string {
  return encodeBase58Check(TRON_PREFIX, Buffer.from(hex.length === 42 ? hex.slice(2) : hex, 'hex'));
}

/** One java-tron call: its JSON answer, or java-tron's `Error` field as an RpcError. */
async function post(url: string, path: string, body: unknown, timeoutMs: number): Promise<unknown> {
  const json = await postJson(url, body, timeoutMs, path);
  if (typeof json !== 'object' || json === null) throw new TransportError(`${redactUrl(url)}: not a java-tron answer`);
  const error = (json as { Error?: unknown }).Error;
  if (typeof error === 'string') throw new RpcError(-32000, error);
  return json;
}

export class TronRpc {
  readonly endpoints: NodeEndpoints;
  readonly solidity: NodeEndpoints;
  readonly #timeoutMs: number;

  constructor(endpoints: NodeEndpoints, solidity: NodeEndpoints = endpoints, timeoutMs = TRON_RPC_TIMEOUT_MS) {
    this.endpoints = endpoints;
    this.solidity = solidity;
    this.#timeoutMs = timeoutMs;
  }

  /** `failures`: filled with the transport failures of nodes tried before the one that answered. */
  wallet<T = TronAnswer>(name: string, body: unknown = {}, failures?: string[]): Promise<T> {
    return this.endpoints.use((url) => post(url, `/wallet/${name}`, body, this.#timeoutMs), failures) as Promise<T>;
  }

  walletSolidity<T = TronAnswer>(name: string, body: unknown = {}): Promise<T> {
    return this.solidity.use((url) => post(url, `/walletsolidity/${name}`, body, this.#timeoutMs)) as Promise<T>;
  }

  /** TRC-20 decimals(), asked as the zero address; null when the contract does not answer it. */
  async tokenDecimals(contractHex: string): Promise<number | null> {
    const r = await this.wallet('triggerconstantcontract', {
      owner_address: `41${'0'.repeat(40)}`, contract_address: contractHex, function_selector: 'decimals()', parameter: '',
    });
    const out = (r.constant_result as unknown[] | undefined)?.[0];
    const ok = (r.result as { result?: unknown } | undefined)?.result === true;
    return ok && typeof out === 'string' && /^[0-9a-f]{1,64}$/i.test(out) ? Number(BigInt(`0x${out}`)) : null;
  }

  /** TRC-20 balanceOf; null when the contract does not answer it. */
  async tokenBalance(contractHex: string, holderHex: string): Promise<bigint | null> {
    const r = await this.wallet('triggerconstantcontract', {
      owner_address: holderHex, contract_address: contractHex, function_selector: 'balanceOf(address)', parameter: holderHex.slice(2).padStart(64, '0'),
    });
    const out = (r.constant_result as unknown[] | undefined)?.[0];
    const ok = (r.result as { result?: unknown } | undefined)?.result === true;
    return ok && typeof out === 'string' && /^[0-9a-f]{1,64}$/i.test(out) ? BigInt(`0x${out}`) : null;
  }
}

/** Text java-tron sends hex-encoded (a refusal's `message`, a failed transaction's `resMessage`); '' when absent. */
export const hexText = (v: unknown): string => (typeof v === 'string' ? Buffer.from(v, 'hex').toString('utf8') : '');
