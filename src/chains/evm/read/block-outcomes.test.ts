import { describe, expect, it } from 'vitest';
import { MethodNotFoundRpcError, MethodNotSupportedRpcError, InternalRpcError } from 'viem';
import { methodUnsupported } from './block-outcomes.ts';
import { RpcError } from '../../rpc/json-rpc.ts';

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
