/** Address ranges as mesh policies and NetworkPolicies compare them. */

/** An IPv4 CIDR's first address and prefix length, or undefined for anything else. */
function ipv4Cidr(value: string): [number, number] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  if (!m || Number(m[5]) > 32) return undefined;
  return [m.slice(1, 5).reduce((acc, o) => acc * 256 + Number(o), 0), Number(m[5])];
}

/** Whether `inner` lies within `outer` (IPv4; an IPv6 range only within itself). */
export function cidrWithin(inner: string, outer: string): boolean {
  if (inner === outer) return true;
  const i = ipv4Cidr(inner);
  const o = ipv4Cidr(outer);
  if (!i || !o || i[1] < o[1]) return false;
  return Math.floor(i[0] / 2 ** (32 - o[1])) === Math.floor(o[0] / 2 ** (32 - o[1]));
}
