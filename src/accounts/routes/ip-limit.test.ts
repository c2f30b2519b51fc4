import { describe, expect, it } from 'vitest';
import { ipLimitKey } from './ip-limit.ts';

describe('ipLimitKey', () => {
  it('keys IPv4 by the address and IPv6 by its /64', () => {
    expect(ipLimitKey('203.0.113.9')).toBe('203.0.113.9');
    expect(ipLimitKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(ipLimitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(ipLimitKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(ipLimitKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(ipLimitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(ipLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(ipLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(ipLimitKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });
});
