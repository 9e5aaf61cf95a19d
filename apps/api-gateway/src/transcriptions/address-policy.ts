import { BlockList, isIP } from 'node:net';

/**
 * Addresses a server-side fetch must never reach: every entry of IANA's IPv4 and IPv6
 * Special-Purpose Address Registries (loopback, private, link-local with the cloud metadata
 * endpoints 169.254.169.254 and fd00:ec2::254, CGNAT, documentation, benchmarking, AS112, AMT,
 * the discard and dummy prefixes, SRv6 SIDs), multicast, the deprecated site-local and
 * IPv4-compatible ranges, and every IPv6 prefix that embeds an IPv4 address (IPv4-mapped,
 * IPv4-translated, NAT64, 6to4, Teredo), whatever that address is. A public address is reached
 * by its own family, never through an embedding.
 */
const FORBIDDEN: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.31.196.0', 24, 'ipv4'],
  ['192.52.193.0', 24, 'ipv4'],
  ['192.88.99.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['192.175.48.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  // ::/96 holds :: and ::1 too.
  ['::', 96, 'ipv6'],
  ['::ffff:0:0', 96, 'ipv6'],
  ['::ffff:0:0:0', 96, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['100:0:0:1::', 64, 'ipv6'],
  ['2001::', 23, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['2002::', 16, 'ipv6'],
  ['2620:4f:8000::', 48, 'ipv6'],
  ['3fff::', 20, 'ipv6'],
  ['5f00::', 16, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/**
 * One list per family: a BlockList compares an IPv4 address with its IPv4-mapped form against
 * IPv6 rules, so in one list ::ffff:0:0/96 would refuse every IPv4 address.
 */
const blockLists = { ipv4: new BlockList(), ipv6: new BlockList() };
for (const [network, prefix, family] of FORBIDDEN) blockLists[family].addSubnet(network, prefix, family);

/** True for an address a fetch must refuse; anything that is not an IP address is refused too. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return true;
  return family === 4 ? blockLists.ipv4.check(bare, 'ipv4') : blockLists.ipv6.check(bare, 'ipv6');
}

/** `TRANSCRIPTION_URL_ALLOW_HOSTS`: comma-separated host names or addresses that may be fetched whatever they resolve to. */
export function parseAllowHosts(value: string): Set<string> {
  return new Set(
    value
      .split(',')
      .map((host) =>
        host
          .trim()
          .toLowerCase()
          .replace(/^\[(.*)\]$/, '$1'),
      )
      .filter((host) => host !== ''),
  );
}
