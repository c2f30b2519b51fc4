import { describe, expect, it } from 'vitest';
import { describeAttemptError, timeoutError } from './attempt-errors.ts';

const err = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('describeAttemptError', () => {
  it('names common socket failures plainly', () => {
    expect(describeAttemptError(err('ECONNREFUSED'))).toBe('connection refused');
    expect(describeAttemptError(err('ECONNRESET', 'socket hang up'))).toBe('connection closed before an answer');
    expect(describeAttemptError(err('EHOSTUNREACH'))).toBe('host unreachable');
    expect(describeAttemptError(err('HPE_INVALID_HEADER_TOKEN'))).toBe('invalid HTTP answer');
  });

  it('marks TLS failures with their message', () => {
    expect(describeAttemptError(err('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))).toBe('TLS error: self-signed certificate');
    expect(describeAttemptError(err('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")))
      .toBe("TLS error: Hostname/IP does not match certificate's altnames");
    expect(describeAttemptError(err('CERT_HAS_EXPIRED', 'certificate has expired'))).toBe('TLS error: certificate has expired');
  });

  it('speaks for several failed addresses with the first', () => {
    expect(describeAttemptError(new AggregateError([err('ECONNREFUSED'), err('ETIMEDOUT')]))).toBe('connection refused');
  });

  it('falls back to the code, then the message', () => {
    expect(describeAttemptError(err('EWEIRD'))).toBe('connection error: EWEIRD');
    expect(describeAttemptError(new Error('odd'))).toBe('connection error: odd');
    expect(timeoutError(10000)).toBe('timeout after 10000 ms');
  });
});
