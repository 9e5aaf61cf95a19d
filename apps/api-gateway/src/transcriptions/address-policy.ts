import { BlockList, isIP } from 'node:net';

/**
 * Addresses a server-side fetch must never reach: loopback, private, link-local (with the cloud
 * metadata endpoints 169.254.169.254 and fd00:ec2::254), CGNAT, multicast, reserved, and the IPv6
 * transition prefixes that can embed any IPv4 address. IPv4-mapped IPv6 forms are matched too.
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
  ['192.88.99.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001::', 32, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['2002::', 16, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const blockList = new BlockList();
for (const [network, prefix, family] of FORBIDDEN) blockList.addSubnet(network, prefix, family);

/** True for an address a fetch must refuse; anything that is not an IP address is refused too. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return true;
  return blockList.check(bare, family === 4 ? 'ipv4' : 'ipv6');
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
