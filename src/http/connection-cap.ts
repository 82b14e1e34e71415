// One client cannot hold every connection of the instance: open sockets are counted per peer
// address, and a connection past MAX_CONNECTIONS_PER_IP is closed as soon as it is accepted. The
// peer address is the socket's own: no header has been read yet, and a header can be forged.
// A peer that TRUST_PROXY trusts is a proxy carrying many clients' connections, so it is exempt.
import { BlockList, isIPv4 } from 'node:net';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { TrustProxy } from '../config.ts';

export interface ConnectionCap {
  /** Open connections of the address now (tests, logs). */
  openFrom(address: string): number;
}

/**
 * Counts `server`'s connections per peer address and closes those past `cap`. `onRefused` is
 * called once each time an address reaches the cap, not for every connection refused (a log line
 * per refused connection would let one client flood the log).
 */
export function capConnectionsPerAddress(
  server: Server,
  cap: number,
  options: { exempt: (address: string) => boolean; onRefused?: (address: string) => void },
): ConnectionCap {
  const open = new Map<string, number>();
  const refusing = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const address = peerAddress(socket.remoteAddress);
    // Gone already (reset before it was handed over): nothing to count.
    if (address === null || options.exempt(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= cap) {
      // At once, before any byte is read: the socket holds no slot for longer than this turn.
      socket.destroy();
      if (!refusing.has(address)) {
        refusing.add(address);
        options.onRefused?.(address);
      }
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      refusing.delete(address);
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return { openFrom: (address) => open.get(peerAddress(address) ?? address) ?? 0 };
}

/** The address with an IPv4-mapped IPv6 form (`::ffff:1.2.3.4`) written as IPv4. */
export function peerAddress(address: string | undefined): string | null {
  if (address === undefined || address === '') return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

const namedRanges: Record<string, Array<[string, number, 'ipv4' | 'ipv6']>> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

/**
 * Whether TRUST_PROXY trusts a directly connected peer: `true` or a hop count of 1 or more trust
 * every peer (the nearest hop is the proxy), a list trusts its addresses, CIDRs and named ranges.
 */
export function trustsPeer(trustProxy: TrustProxy): (address: string) => boolean {
  if (trustProxy === true) return () => true;
  if (trustProxy === false) return () => false;
  if (typeof trustProxy === 'number') return () => trustProxy > 0;
  const trusted = new BlockList();
  for (const entry of trustProxy) {
    const named = namedRanges[entry];
    if (named !== undefined) {
      for (const [network, prefix, family] of named) trusted.addSubnet(network, prefix, family);
      continue;
    }
    const [network, prefix] = entry.split('/');
    const family = isIPv4(network!) ? 'ipv4' : 'ipv6';
    try {
      if (prefix === undefined) trusted.addAddress(network!, family);
      else trusted.addSubnet(network!, Number(prefix), family);
    } catch {
      // Not an address after all (999.0.0.1): it trusts nobody, as for the X-Forwarded-For check.
    }
  }
  return (address) => trusted.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
}
