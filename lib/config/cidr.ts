/** IPv4 CIDR arithmetic: a canonical CIDR's network and prefix, and whether two ranges overlap. */

/** Parses a canonical IPv4 CIDR into [network, prefix]; undefined when malformed or host bits are set. */
export function parseCidr(value: string): [number, number] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  if (!match) return undefined;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  if (address % size !== 0) return undefined;
  return [address, prefix];
}

/** Whether two IPv4 CIDRs share an address; a malformed one counts as 0.0.0.0/32. */
export function overlaps(a: string, b: string): boolean {
  const [aStart, aPrefix] = parseCidr(a) ?? [0, 32];
  const [bStart, bPrefix] = parseCidr(b) ?? [0, 32];
  const aEnd = aStart + 2 ** (32 - aPrefix);
  const bEnd = bStart + 2 ** (32 - bPrefix);
  return aStart < bEnd && bStart < aEnd;
}
