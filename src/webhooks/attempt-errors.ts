// Short, stable texts for attempts that got no answer, recorded as `last_error` and a history
// entry's `error` (CONTRACT "Delivery and real time"). Node's own messages vary between versions.

export const timeoutError = (ms: number) => `timeout after ${ms} ms`;

const BY_CODE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection closed before an answer',
  EPIPE: 'connection closed before an answer',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'url host does not resolve',
  HPE_INVALID_CONSTANT: 'invalid HTTP answer',
};

// OpenSSL verification codes and Node's TLS error codes.
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|INVALID_CA|INVALID_PURPOSE)/;

export function describeAttemptError(err: unknown): string {
  // Several addresses tried in turn (happy eyeballs) fail together; the first failure speaks for them.
  const first = err instanceof AggregateError && err.errors.length > 0 ? err.errors[0] : err;
  const code = (first as { code?: unknown } | null)?.code;
  const message = first instanceof Error ? first.message : String(first);
  if (typeof code === 'string') {
    if (BY_CODE[code]) return BY_CODE[code];
    if (TLS_CODE.test(code)) return `TLS error: ${message}`;
    if (code.startsWith('HPE_')) return 'invalid HTTP answer';
    return `connection error: ${code}`;
  }
  return `connection error: ${message}`;
}
