import { isForbiddenAddress, parseAllowHosts } from './address-policy';

describe('isForbiddenAddress', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1'],
    ['the rest of 127/8', '127.255.0.9'],
    ['this network', '0.0.0.0'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.31.255.254'],
    ['private 192.168/16', '192.168.0.1'],
    ['link-local', '169.254.10.10'],
    ['the cloud metadata endpoint', '169.254.169.254'],
    ['CGNAT', '100.64.0.1'],
    ['CGNAT upper end', '100.127.255.255'],
    ['multicast', '224.0.0.251'],
    ['broadcast', '255.255.255.255'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 unique local', 'fd12:3456::1'],
    ['the AWS IPv6 metadata endpoint', 'fd00:ec2::254'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback in hex', '::ffff:7f00:1'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['NAT64 of a private address', '64:ff9b::a00:1'],
    ['6to4', '2002:7f00:1::1'],
    ['a bracketed IPv6 loopback', '[::1]'],
    ['IPv4-compatible IPv6 (::/96)', '::8.8.8.8'],
    ['IPv4-compatible IPv6 in hex', '::808:808'],
    ['an IPv4-mapped public address (::ffff:0:0/96)', '::ffff:8.8.8.8'],
    ['IPv4-translated (::ffff:0:0:0/96)', '::ffff:0:808:808'],
    ['the IPv6 discard prefix', '100::1'],
    ['the IPv6 dummy prefix', '100:0:0:1::1'],
    ['IETF protocol assignments (2001::/23)', '2001:1ff::1'],
    ['IPv6 documentation 3fff::/20', '3fff:fff::1'],
    ['SRv6 SIDs', '5f00::1'],
    ['AS112 direct delegation (IPv6)', '2620:4f:8000::1'],
    ['AS112 (IPv4)', '192.31.196.1'],
    ['AMT relay anycast', '192.52.193.1'],
    ['AS112 direct delegation (IPv4)', '192.175.48.1'],
    ['not an address', 'localhost'],
  ])('refuses %s (%s)', (_label, address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ['a public IPv4 address', '93.184.216.34'],
    ['just outside 172.16/12', '172.32.0.1'],
    ['just outside CGNAT', '100.128.0.1'],
    ['a public IPv6 address', '2606:4700:4700::1111'],
  ])('allows %s (%s)', (_label, address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('parseAllowHosts', () => {
  it('lowercases, trims, unbrackets and drops empty entries', () => {
    expect([...parseAllowHosts(' Audio.Internal ,127.0.0.1,,[::1] ')]).toEqual([
      'audio.internal',
      '127.0.0.1',
      '::1',
    ]);
  });

  it('is empty when unset', () => {
    expect(parseAllowHosts('').size).toBe(0);
  });
});
