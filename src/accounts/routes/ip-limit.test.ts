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

  it('keys an IPv4 address written as IPv6 by the IPv4 address, in any notation and case', () => {
    for (const ip of ['::ffff:203.0.113.9', '::FFFF:203.0.113.9', '0:0:0:0:0:ffff:203.0.113.9', '0000:0000:0000:0000:0000:FFFF:203.0.113.9', '::ffff:cb00:7109', '0:0:0:0:0:FFFF:CB00:7109']) {
      expect(ipLimitKey(ip), ip).toBe('203.0.113.9');
    }
    expect(ipLimitKey('::ffff:0:1')).toBe('0.0.0.1');
    expect(ipLimitKey('::ffff:ffff:ffff')).toBe('255.255.255.255');
    // Not mapped: an address whose sixth group is not ffff, or whose first five are not all zero.
    expect(ipLimitKey('::fffe:cb00:7109')).toBe('0:0:0:0::/64');
    expect(ipLimitKey('0:0:0:0:1:ffff:cb00:7109')).toBe('0:0:0:0::/64');
    expect(ipLimitKey('1::ffff:cb00:7109')).toBe('1:0:0:0::/64');
  });

  it('keys an IPv6 address by the same /64 whatever its notation', () => {
    expect(ipLimitKey('2001:DB8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(ipLimitKey('2001:db8:1::5:6:7:8')).toBe('2001:db8:1:0::/64');
    expect(ipLimitKey('2001:db8:1:0:5:6:7:8')).toBe('2001:db8:1:0::/64');
    expect(ipLimitKey('2001:db8:1:2:3:4:1.2.3.4')).toBe('2001:db8:1:2::/64');
    expect(ipLimitKey('::')).toBe('0:0:0:0::/64');
    expect(ipLimitKey('1::')).toBe('1:0:0:0::/64');
  });

  it('drops the port a proxy may write after the address', () => {
    expect(ipLimitKey('203.0.113.9:5678')).toBe('203.0.113.9');
    expect(ipLimitKey('[2001:db8:1:2::1]:5678')).toBe('2001:db8:1:2::/64');
    expect(ipLimitKey('[2001:db8:1:2::1]')).toBe('2001:db8:1:2::/64');
    expect(ipLimitKey('[::ffff:203.0.113.9]:80')).toBe('203.0.113.9');
  });
});
