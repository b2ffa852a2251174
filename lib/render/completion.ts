/**
 * Shell completion for the command, made from its commands and their option tables, so it offers what
 * the command accepts and nothing else: commands; each command's options; stack names (from the
 * Pulumi.<stack>.yaml files of the current folder) after --stack; folders after an option that takes one.
 * zsh runs the bash function through bashcompinit.
 */

export const completionShells = ["bash", "zsh"] as const;
export type CompletionShell = (typeof completionShells)[number];

/** What completion needs of a command: its options, and which of them take a folder or a choice. */
export interface CompletedCommand {
  readonly options: readonly string[];
  /** Options whose value is a folder. */
  readonly folders?: readonly string[];
  /** Options whose value is one of a list. */
  readonly choices?: Readonly<Record<string, readonly string[]>>;
  /** The command's arguments are folders (render's program, init's new one). */
  readonly folderArgument?: boolean;
}

const quote = (words: readonly string[]) => words.join(" ");

/** The completion script for a shell. */
export function completionScript(
  shell: CompletionShell,
  command: string,
  commands: Readonly<Record<string, CompletedCommand>>,
): string {
  const fn = `_${command.replace(/[^A-Za-z0-9]/g, "_")}`;
  const cases = Object.entries(commands).map(([name, c]) => {
    const values = [
      ...(c.folders ?? []).map((f) => `      ${f}) COMPREPLY=($(compgen -d -- "$cur")); return ;;`),
      ...Object.entries(c.choices ?? {}).map(
        ([f, list]) => `      ${f}) COMPREPLY=($(compgen -W "${quote(list)}" -- "$cur")); return ;;`,
      ),
      ...(c.options.includes("--stack")
        ? [
            `      --stack) COMPREPLY=($(compgen -W "$(ls Pulumi.*.yaml Pulumi.*.yml 2>/dev/null | sed -E 's/^Pulumi\\.(.*)\\.ya?ml$/\\1/')" -- "$cur")); return ;;`,
          ]
        : []),
    ];
    return [
      `    ${name})`,
      ...(values.length > 0 ? ['      case "$prev" in', ...values.map((v) => `  ${v}`), "      esac"] : []),
      `      COMPREPLY=($(compgen -W "${quote(c.options)}" -- "$cur"))`,
      ...(c.folderArgument ? ['      [[ "$cur" != -* ]] && COMPREPLY+=($(compgen -d -- "$cur"))'] : []),
      "      ;;",
    ].join("\n");
  });
  const body = [
    `# ${command} completion for ${shell}. Install: ${command} completion ${shell} >> ~/.${shell}rc`,
    ...(shell === "zsh" ? ["autoload -U +X bashcompinit && bashcompinit"] : []),
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  if [ "$COMP_CWORD" -eq 1 ]; then',
    `    COMPREPLY=($(compgen -W "${quote([...Object.keys(commands), "--help", "--version"])}" -- "$cur"))`,
    "    return",
    "  fi",
    '  case "${COMP_WORDS[1]}" in',
    ...cases,
    "  esac",
    "}",
    `complete -F ${fn} ${command}`,
    "",
  ];
  return body.join("\n");
}
