import net from 'node:net';

/**
 * Which addresses a webhook may connect to. Loopback, private, link-local (cloud metadata), CGNAT, multicast and
 * reserved ranges of IPv4 and IPv6 are refused unless the allow-list admits them. Checked on the address the
 * socket resolved and connected to, so DNS rebinding cannot slip a private address past a check on the name.
 */
const REFUSED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;
const REFUSED_V6 = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const;

export class AddressGuard {
  private readonly refused = new net.BlockList();
  private readonly allowed = new net.BlockList();

  constructor(allowCidrs: string[]) {
    for (const [address, prefix] of REFUSED_V4) this.refused.addSubnet(address, prefix, 'ipv4');
    for (const [address, prefix] of REFUSED_V6) this.refused.addSubnet(address, prefix, 'ipv6');
    for (const cidr of allowCidrs) {
      const [address, prefix] = cidr.split('/');
      const family = net.isIPv6(address!) ? 'ipv6' : 'ipv4';
      this.allowed.addSubnet(address!, Number(prefix), family);
    }
  }

  allows(address: string): boolean {
    const plain = unmapped(address);
    const family = net.isIPv6(plain) ? 'ipv6' : net.isIPv4(plain) ? 'ipv4' : undefined;
    if (!family) return false;
    if (this.allowed.check(plain, family)) return true;
    return !this.refused.check(plain, family);
  }
}

/** "::ffff:10.0.0.1" is 10.0.0.1. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match ? match[1]! : address;
}
