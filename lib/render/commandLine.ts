import { nearest } from "../config";

/**
 * What every command of the command line is made of: its options as a table (`Flag`), their parsing,
 * the usage error a wrong command line gets, where its output goes (`CliIo`) and its options' help.
 */

/** One option of a command; a command's options are a table, so adding one is adding a row. */
export interface Flag {
  readonly name: `--${string}`;
  readonly alias?: `-${string}`;
  /** The value's placeholder, e.g. `name` for `--stack <name>`; absent for a switch. */
  readonly value?: string;
  readonly help: string;
}

/** A wrong command line: said with the option at fault, then how to get help; exit code 2. */
export class UsageError extends Error {}

/** Options given on a command line: a value per option that takes one, `true` for a switch. */
export type ParsedFlags = ReadonlyMap<string, string | true>;

/**
 * Splits arguments into options and positional arguments. `--name value` and `--name=value` both
 * work; `--` ends the options. An unknown option, one given twice, or one missing its value is a
 * `UsageError` naming it.
 */
export function parseFlags(
  args: readonly string[],
  flags: readonly Flag[],
): { flags: ParsedFlags; positionals: string[] } {
  const values = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const written = eq === -1 ? arg : arg.slice(0, eq);
    const flag = flags.find((f) => f.name === written || f.alias === written);
    if (!flag) {
      const names = flags.map((f) => f.name);
      const suggestion = written.startsWith("--") ? nearest(written, names) : undefined;
      throw new UsageError(
        `unknown option ${written}` + (suggestion ? ` (did you mean ${suggestion}?)` : ""),
      );
    }
    if (values.has(flag.name)) throw new UsageError(`${flag.name} is given twice`);
    if (flag.value === undefined) {
      if (eq !== -1) throw new UsageError(`${flag.name} takes no value`);
      values.set(flag.name, true);
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : args[i + 1];
    if (value === undefined || value === "" || (eq === -1 && value.startsWith("-"))) {
      throw new UsageError(`${flag.name} needs a value: ${flag.name} <${flag.value}>`);
    }
    values.set(flag.name, value);
    if (eq === -1) i++;
  }
  return { flags: values, positionals };
}

/** Where the command's output goes, and what it may do; tests replace these. */
export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** How the user invoked the command, for the examples in messages. */
  readonly invokedAs: string;
  /** Load TypeScript programs with ts-node, as Pulumi does, where the process does not already. */
  readonly registerTypeScript: boolean;
}

/** A command's options for its help, one per line, their descriptions aligned. */
export function flagLines(flags: readonly Flag[]): string[] {
  const heads = flags.map(
    (f) => `${f.alias ? `${f.alias}, ` : ""}${f.name}${f.value ? ` <${f.value}>` : ""}`,
  );
  const width = Math.max(...heads.map((h) => h.length));
  return flags.map((f, i) => `  ${heads[i].padEnd(width)}  ${f.help}`);
}
