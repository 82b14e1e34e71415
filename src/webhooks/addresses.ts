// Where a webhook may be sent: its host is resolved (through an injectable lookup, so that tests
// stub DNS), and every address it resolves to must be public. Loopback, private, link-local,
// unique-local, CGNAT, multicast, reserved and unspecified addresses (IPv4 and IPv6, IPv4 inside
// IPv6 too) are refused unless allowed by WEBHOOK_ALLOW_PRIVATE. Checked when a webhook is created
// and again before every attempt, whose connection goes to the address checked (a host that
// resolves elsewhere the second time, DNS rebinding, gains nothing).
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (default: the system resolver, `dns.lookup` with `all`). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: HostLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

/** `true`: any address; a list: those addresses and CIDR ranges only, beside the public ones. */
export type PrivateAllowance = boolean | readonly string[];

const nonPublicV4 = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const;

const nonPublicV6 = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const;

const nonPublic = new BlockList();
for (const [network, prefix] of nonPublicV4) nonPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of nonPublicV6) nonPublic.addSubnet(network, prefix, 'ipv6');

/**
 * The IPv4 address an IPv6 one carries, when it is IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`) or NAT64 (`64:ff9b::a.b.c.d`): it reaches that IPv4 host, so it is judged as it.
 */
export function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (groups === null) return null;
  const high = groups.slice(0, 6);
  const mapped = high.slice(0, 5).every((group) => group === 0) && high[5] === 0xffff;
  const compatible = high.every((group) => group === 0) && (groups[6]! !== 0 || groups[7]! > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && high.slice(2).every((group) => group === 0);
  if (!mapped && !compatible && !nat64) return null;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included), or null. */
function expandIpv6(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : [];
  const first = parse(head);
  const last = parse(tail);
  const zeros = tail === undefined ? 0 : 8 - first.length - last.length;
  return [...first, ...new Array<number>(zeros).fill(0), ...last];
}

/** Whether an address (v4 or v6) is anything but a public unicast one. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return nonPublic.check(address, 'ipv4');
  const inner = embeddedIpv4(address);
  if (inner !== null) return nonPublic.check(inner, 'ipv4');
  return nonPublic.check(address.split('%')[0]!, 'ipv6');
}

/** The allow-list of WEBHOOK_ALLOW_PRIVATE as a BlockList (addresses and CIDR ranges). */
function allowListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [network, prefix] = entry.split('/');
    const family = isIP(network!) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(network!, family);
    else list.addSubnet(network!, Number(prefix), family);
  }
  return list;
}

export class TargetRefusedError extends Error {}

/** Decides whether addresses may be reached, under a WEBHOOK_ALLOW_PRIVATE setting. */
export class AddressPolicy {
  readonly #allowAll: boolean;
  readonly #allowed: BlockList | null;
  readonly #lookup: HostLookup;

  constructor(allowance: PrivateAllowance = false, lookup: HostLookup = systemLookup) {
    this.#allowAll = allowance === true;
    this.#allowed = Array.isArray(allowance) && allowance.length > 0 ? allowListOf(allowance) : null;
    this.#lookup = lookup;
  }

  allows(address: string): boolean {
    if (this.#allowAll || !isNonPublicAddress(address)) return true;
    if (this.#allowed === null) return false;
    const inner = embeddedIpv4(address);
    if (inner !== null) return this.#allowed.check(inner, 'ipv4');
    return this.#allowed.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * The address to connect to for `url`: its host resolved, every address it resolves to allowed
   * (one refused address refuses the host: which one a connection would use is not ours to pick).
   * Throws TargetRefusedError saying why.
   */
  async resolve(url: URL): Promise<ResolvedAddress> {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const literal = isIP(host);
    let addresses: ResolvedAddress[];
    if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
    else {
      try {
        addresses = await this.#lookup(host);
      } catch (error) {
        throw new TargetRefusedError(
          `the host '${host}' does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})`,
        );
      }
      if (addresses.length === 0) throw new TargetRefusedError(`the host '${host}' does not resolve`);
    }
    const refused = addresses.find((entry) => !this.allows(entry.address));
    if (refused !== undefined) {
      throw new TargetRefusedError(
        `${literal === 0 ? `the host '${host}' resolves to ${refused.address}, ` : `${refused.address} is `}a loopback, private, link-local or otherwise non-public address; such targets are refused unless WEBHOOK_ALLOW_PRIVATE allows them`,
      );
    }
    return addresses[0]!;
  }
}
