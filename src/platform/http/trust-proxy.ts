// TRUST_PROXY as Fastify's `trustProxy` option. Fastify's own hop count refuses to trust a peer it
// cannot check, so `1` ("one proxy in front", CONTRACT.md) is a function trusting exactly the
// immediate peer: the client is then the last X-Forwarded-For entry, the one that proxy appended.
// A list of addresses and CIDR ranges is handed over as it is (the right-most untrusted entry wins).
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../../config.ts';

export type FastifyTrustProxy = false | string[] | ((addr: string, hop: number) => boolean);

export function trustProxyOption(tp: TrustProxy): FastifyTrustProxy {
  if (tp === 1) return (_addr, hop) => hop < 1;
  return tp;
}

/**
 * The client address of a raw request (a socket's handshake), worked out as Fastify works out
 * `req.ip` from trustProxyOption (the same proxy-addr package and the same trust rule), so a limit
 * keyed by address counts one client once whether it comes over HTTP or a socket.
 */
export function clientAddressOf(tp: TrustProxy): (req: IncomingMessage) => string {
  const option = trustProxyOption(tp);
  if (option === false) return (req) => req.socket?.remoteAddress ?? '';
  const trust = typeof option === 'function' ? option : proxyAddr.compile(option);
  return (req) => proxyAddr(req, trust) ?? '';
}
