import { invariants, type InvariantName, type Violation } from "../safety";

/** The safety invariants a render was checked against, each holding or not, with every violation's message. */
export function safetySummary(violations: readonly Violation[]): string {
  const names = Object.keys(invariants) as InvariantName[];
  const broken = new Set(violations.map((v) => v.invariant));
  const lines = [
    `  safety invariants (${names.length}): ${violations.length === 0 ? "all hold" : `${broken.size} violated`}`,
  ];
  for (const name of names) {
    lines.push(`    ${broken.has(name) ? "violated" : "holds   "}  ${name}: ${invariants[name]}`);
    for (const v of violations.filter((x) => x.invariant === name))
      lines.push(`      - ${v.resource}: ${v.message}`);
  }
  return lines.join("\n");
}
