import { createHash } from "node:crypto";

/**
 * Prometheus's relabelling, as the scrape model runs it: its regular expressions (RE2) translated to
 * JavaScript's, and the relabel actions applied to a target's labels in order.
 */

export interface Relabel {
  readonly sourceLabels?: readonly string[];
  readonly separator?: string;
  readonly targetLabel?: string;
  readonly regex?: string;
  readonly modulus?: number;
  readonly replacement?: string;
  readonly action?: string;
}

/** RE2's POSIX classes, as JavaScript bracket contents. */
const posixClasses: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * A relabelling regex as Prometheus compiles it, `^(?s:<regex>)$` (model/relabel/relabel.go), written in
 * JavaScript: RE2's `(?P<name>` groups, POSIX classes, `\pL`, `\A` and `\z`, and leading flags. Undefined
 * where Go would not compile it (lookaround, backreferences: the operator then refuses the monitor) and
 * for RE2 syntax JavaScript cannot say (mid-pattern flags, `(?U)`), which would count as scraping
 * nothing rather than pass unchecked.
 */
export function compile(regex: string): RegExp | undefined {
  if (/\(\?<?[=!]|\\[1-9]|\[:\^/.test(regex)) return undefined;
  const lead = /^\(\?([imsU]*)(?:-([imsU]+))?\)/.exec(regex);
  const on = lead?.[1] ?? "";
  const off = lead?.[2] ?? "";
  if (on.includes("U")) return undefined;
  const unicode = /\\[pP]/.test(regex);
  const body = (lead ? regex.slice(lead[0].length) : regex)
    .replace(/\(\?P</g, "(?<")
    .replace(/\[:(\w+):\]/g, (whole, name: string) => posixClasses[name] ?? whole)
    .replace(/\\([pP])([A-Za-z])/g, "\\$1{$2}")
    .replace(/\\A/g, "^")
    .replace(/\\z/g, "$");
  const flags = `${off.includes("s") ? "" : "s"}${on.includes("i") ? "i" : ""}${on.includes("m") ? "m" : ""}${unicode ? "u" : ""}`;
  try {
    return new RegExp(`^(?:${body})$`, flags);
  } catch {
    return undefined;
  }
}

/**
 * Go's Regexp.Expand: `$1`, `${1}`, `$name`, `${name}` (unknown or unmatched: empty; a number with a
 * leading zero is a name), `$$` a dollar.
 */
function expand(m: RegExpExecArray, template: string): string {
  return template.replace(/\$(?:\$|\{(\w+)\}|(\w+))/g, (whole, braced?: string, bare?: string) => {
    if (whole === "$$") return "$";
    const name = braced ?? bare ?? "";
    return (/^(0|[1-9]\d*)$/.test(name) ? m[Number(name)] : m.groups?.[name]) ?? "";
  });
}

/** Whether every regex of these rules compiles: the operator refuses a monitor with one that does not. */
export function relabelingsCompile(rules: readonly Relabel[]): boolean {
  return rules.every((r) => compile(r.regex ?? "(.*)") !== undefined);
}

/** What `hashmod` writes: the last 8 bytes of the value's MD5, big-endian, modulo the modulus. */
function hashmod(value: string, modulus: number): string {
  const digest = createHash("md5").update(value).digest();
  return String(digest.readBigUInt64BE(8) % BigInt(modulus));
}

/**
 * Prometheus' relabelling (model/relabel/relabel.go): anchored regexes, group references in replacements
 * and target labels, every action. A regex that does not compile keeps nothing: the operator would
 * refuse the monitor, so it scrapes nothing.
 */
export function relabel(
  labels: Record<string, string>,
  rules: readonly Relabel[],
): Record<string, string> | undefined {
  let out = { ...labels };
  for (const r of rules) {
    const action = (r.action ?? "replace").toLowerCase();
    const re = compile(r.regex ?? "(.*)");
    if (!re) return undefined;
    const value = (r.sourceLabels ?? []).map((l) => out[l] ?? "").join(r.separator ?? ";");
    const target = r.targetLabel ?? "";
    // Setting a label to "" removes it; a label named "" is never written.
    const set = (name: string, v: string) => {
      if (name === "") return;
      if (v === "") delete out[name];
      else out[name] = v;
    };
    switch (action) {
      case "replace": {
        const m = re.exec(value);
        if (!m || !r.targetLabel) break;
        set(expand(m, target), expand(m, r.replacement ?? "$1"));
        break;
      }
      case "lowercase":
        set(target, value.toLowerCase());
        break;
      case "uppercase":
        set(target, value.toUpperCase());
        break;
      case "hashmod":
        set(target, hashmod(value, r.modulus ?? 1));
        break;
      case "keep":
        if (!re.test(value)) return undefined;
        break;
      case "drop":
        if (re.test(value)) return undefined;
        break;
      case "keepequal":
        if (value !== (out[target] ?? "")) return undefined;
        break;
      case "dropequal":
        if (value === (out[target] ?? "")) return undefined;
        break;
      case "labelmap":
        for (const [k, v] of Object.entries(out)) {
          const m = re.exec(k);
          if (m) set(expand(m, r.replacement ?? "$1"), v);
        }
        break;
      case "labeldrop":
        out = Object.fromEntries(Object.entries(out).filter(([k]) => !re.test(k)));
        break;
      case "labelkeep":
        out = Object.fromEntries(Object.entries(out).filter(([k]) => re.test(k)));
        break;
      default:
        break;
    }
  }
  return out;
}
