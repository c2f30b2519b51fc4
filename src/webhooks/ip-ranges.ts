// Which IP addresses a webhook may be posted to: public unicast only. Pure (no DNS, no sockets).
// IPv4 refuses the IANA special-purpose blocks; IPv6 accepts only global unicast (2000::/3) minus its
// special blocks, and judges the forms that carry an IPv4 address (mapped, compatible, translated,
// NAT64, 6to4) by that IPv4 address, so no private IPv4 can be reached through an IPv6 spelling.
import net from 'node:net';

type Range = readonly [base: bigint, prefix: number];

function parseIpv4(text: string): bigint | null {
  if (net.isIPv4(text) === false) return null;
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseIpv6(text: string): bigint | null {
  if (net.isIPv6(text) === false) return null;
  let head = text;
  let tailV4: bigint | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tailV4 = parseIpv4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`; // stand-in groups, replaced below
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const l = groups(left);
  const r = groups(right);
  const all = right === undefined ? l : [...l, ...Array<string>(8 - l.length - r.length).fill('0'), ...r];
  if (all.length !== 8) return null;
  let value = all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (tailV4 !== null) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

function v4(cidr: string): Range {
  const [ip, len] = cidr.split('/');
  return [parseIpv4(ip)!, Number(len)];
}
function v6(cidr: string): Range {
  const [ip, len] = cidr.split('/');
  return [parseIpv6(ip)!, Number(len)];
}

function inRange(value: bigint, [base, prefix]: Range, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}

const REFUSED_V4: readonly Range[] = [
  '0.0.0.0/8', // "this network", unspecified
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, including the cloud metadata address 169.254.169.254
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation TEST-NET-1
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation TEST-NET-2
  '203.0.113.0/24', // documentation TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, including broadcast 255.255.255.255
].map(v4);

const GLOBAL_UNICAST_V6 = v6('2000::/3');
const REFUSED_V6: readonly Range[] = [
  '2001::/23', // IETF protocol assignments: Teredo, benchmarking, ORCHID
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation
].map(v6);
// Outside 2000::/3 everything is refused anyway (loopback, unspecified, unique-local fc00::/7 with
// the cloud metadata fd00:ec2::254, link-local fe80::/10, multicast ff00::/8, discard 100::/64,
// local NAT64 64:ff9b:1::/48); these are named only to pull out the IPv4 inside.
const EMBEDS_V4_LOW32: readonly Range[] = [
  '::ffff:0:0/96', // IPv4-mapped
  '::ffff:0:0:0/96', // IPv4-translated
  '64:ff9b::/96', // NAT64 well-known prefix
  '::/96', // IPv4-compatible (deprecated); :: and ::1 fall in here and are refused as 0.0.0.0/8
].map(v6);
const SIX_TO_FOUR = v6('2002::/16'); // the IPv4 address is bits 16..47

export type IpFamily = 4 | 6;

function isPublicV4(value: bigint): boolean {
  return !REFUSED_V4.some((r) => inRange(value, r, 32));
}

function isPublicV6(value: bigint): boolean {
  for (const r of EMBEDS_V4_LOW32) if (inRange(value, r, 128)) return isPublicV4(value & 0xffffffffn);
  if (inRange(value, SIX_TO_FOUR, 128)) return isPublicV4((value >> 80n) & 0xffffffffn);
  if (!inRange(value, GLOBAL_UNICAST_V6, 128)) return false;
  return !REFUSED_V6.some((r) => inRange(value, r, 128));
}

/** The family of an IP literal (a zone suffix like `%eth0` is ignored), or 0 when it is not one. */
export function ipFamily(address: string): IpFamily | 0 {
  const bare = address.replace(/%.*$/, '');
  return net.isIPv4(bare) ? 4 : net.isIPv6(bare) ? 6 : 0;
}

/** True when `address` is a public unicast IP; anything unparsable is not public. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, '');
  const a4 = parseIpv4(bare);
  if (a4 !== null) return isPublicV4(a4);
  const a6 = parseIpv6(bare);
  if (a6 !== null) return isPublicV6(a6);
  return false;
}
