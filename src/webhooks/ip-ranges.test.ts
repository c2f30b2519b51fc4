import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ipFamily, isPublicAddress } from './ip-ranges.ts';

const REFUSED = [
  '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.9.9.9',
  '169.254.169.254', '169.254.0.1', '172.16.0.1', '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.88.99.1',
  '192.168.1.1', '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250',
  '240.0.0.1', '255.255.255.255',
  '::', '::1', 'fc00::1', 'fd00:ec2::254', 'fdff:ffff::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1', 'ff02::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '::10.1.2.3',
  '::ffff:0:10.0.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::8.8.8.8', '2002:7f00:1::1',
  '2002:c0a8:101::', '2001:db8::1', '2001::1', '2001:2::1', '3fff::1', '100::1', '1::1', '4000::1',
  'not-an-ip', '', '1.2.3', '::ffff:1.2.3.4.5',
];
const PUBLIC = [
  '1.1.1.1', '8.8.8.8', '93.184.216.34', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0',
  '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255', '169.253.0.1',
  '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:0808:0808::1',
  '2400:cb00::1',
];

describe('isPublicAddress', () => {
  it.each(REFUSED)('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));
  it.each(PUBLIC)('accepts %s', (a) => expect(isPublicAddress(a)).toBe(true));

  it('property: a refused IPv4 stays refused in every IPv6 spelling that carries it', () => {
    const refusedV4 = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.integer({ min: 100, max: 100 }), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
    );
    fc.assert(fc.property(refusedV4, ([a, b, c, d]) => {
      const dotted = `${a}.${b}.${c}.${d}`;
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
      for (const form of [dotted, `::ffff:${dotted}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `64:ff9b::${dotted}`,
        `2002:${hex(a, b)}:${hex(c, d)}::1`, `::${dotted}`]) {
        expect(isPublicAddress(form), form).toBe(false);
      }
    }));
  });
});

describe('ipFamily', () => {
  it('names the family of literals only', () => {
    expect(ipFamily('8.8.8.8')).toBe(4);
    expect(ipFamily('::1')).toBe(6);
    expect(ipFamily('fe80::1%eth0')).toBe(6);
    expect(ipFamily('example.com')).toBe(0);
  });
});
