/**
 * `cairn completion bash|zsh|fish`: a completion script generated from the command tree itself
 * (commands, their flags and flag choices), so it never lists a command that is gone. Each shell
 * finds the command path typed so far (the words that name commands, flags skipped) and offers
 * that command's subcommands, or its flags after a `-`; a leaf command's arguments fall back to
 * the shell's file completion.
 */
import { Argument, type Command, type Option } from "commander";
import { withExamples } from "../command-kit.ts";

interface Flag {
  name: string;
  description: string;
  takesValue: boolean;
  choices: readonly string[];
}

interface Node {
  /** The command path after `cairn`, words joined by one space ("" for cairn itself). */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  flags: Flag[];
}

const isHidden = (command: Command) => (command as unknown as { _hidden?: boolean })._hidden === true;

function flagsOf(command: Command): Flag[] {
  const flags = command.options
    .filter((option: Option) => !option.hidden && option.long)
    .flatMap((option: Option) => {
      const base = {
        description: option.description,
        takesValue: option.required || option.optional,
        choices: option.argChoices ?? [],
      };
      return [option.long, option.short].filter(Boolean).map((name) => ({ ...base, name: name as string }));
    });
  flags.push({ name: "--help", description: "show help", takesValue: false, choices: [] });
  return flags;
}

/** Every command of the tree, depth first, with what can follow it. */
function walk(command: Command, path: string[] = []): Node[] {
  const children = command.commands.filter((child) => !isHidden(child));
  // A first argument with fixed choices (`mcp init claude-code`) completes like a subcommand.
  const argumentChoices = (command.registeredArguments[0]?.argChoices ?? []).map((name) => ({
    name,
    description: command.registeredArguments[0]?.description ?? "",
  }));
  const node: Node = {
    path: path.join(" "),
    description: command.description(),
    subcommands: [
      ...children.map((child) => ({ name: child.name(), description: child.description() })),
      ...argumentChoices,
    ],
    flags: flagsOf(command),
  };
  return [node, ...children.flatMap((child) => walk(child, [...path, child.name()]))];
}

const single = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
const firstLine = (text: string) => text.split("\n")[0] ?? "";

function bash(nodes: Node[]): string {
  const paths = nodes.filter((node) => node.path !== "").map((node) => single(node.path));
  const words = nodes.map((node) => {
    const all = [...node.subcommands.map((sub) => sub.name), ...node.flags.map((flag) => flag.name)];
    return `    ${single(node.path)}) words=${single(all.join(" "))} ;;`;
  });
  const choices = nodes.flatMap((node) =>
    node.flags
      .filter((flag) => flag.choices.length > 0)
      .map(
        (flag) => `    ${single(`${node.path}|${flag.name}`)}) words=${single(flag.choices.join(" "))} ;;`,
      ),
  );
  return `# cairn completion for bash: eval "$(cairn completion bash)" (docs/cli.md#shell-completion)
_cairn() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmdpath="" word words="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    case "\${cmdpath:+$cmdpath }$word" in
      ${paths.join("|")}) cmdpath="\${cmdpath:+$cmdpath }$word" ;;
    esac
  done
  case "$cmdpath|$prev" in
${choices.join("\n")}
  esac
  if [[ -z "$words" ]]; then
    case "$cmdpath" in
${words.join("\n")}
    esac
    # Subcommands unless a flag is being typed; a leaf command's arguments are files.
    if [[ "$cur" != -* ]]; then
      local subcommands="" candidate
      for candidate in $words; do [[ "$candidate" != -* ]] && subcommands+="$candidate "; done
      words="$subcommands"
    fi
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _cairn cairn
`;
}

function zsh(nodes: Node[]): string {
  const escapeColon = (text: string) => text.replaceAll("\\", "\\\\").replaceAll(":", "\\:");
  const paths = nodes.filter((node) => node.path !== "").map((node) => single(node.path));
  const cases = nodes.map((node) => {
    const subcommands = node.subcommands.map((sub) =>
      single(`${escapeColon(sub.name)}:${escapeColon(firstLine(sub.description))}`),
    );
    const flags = node.flags.map((flag) =>
      single(`${escapeColon(flag.name)}:${escapeColon(firstLine(flag.description))}`),
    );
    return `    (${single(node.path)}) subcommands=(${subcommands.join(" ")}); flags=(${flags.join(" ")}) ;;`;
  });
  const choices = nodes.flatMap((node) =>
    node.flags
      .filter((flag) => flag.choices.length > 0)
      .map(
        (flag) =>
          `    (${single(`${node.path}|${flag.name}`)}) compadd -- ${flag.choices.map(single).join(" ")}; return ;;`,
      ),
  );
  return `#compdef cairn
# cairn completion for zsh: eval "$(cairn completion zsh)" (docs/cli.md#shell-completion)
_cairn() {
  local cmdpath="" word i
  local -a subcommands flags
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    [[ "$word" == -* ]] && continue
    case "\${cmdpath:+$cmdpath }$word" in
      (${paths.join("|")}) cmdpath="\${cmdpath:+$cmdpath }$word" ;;
    esac
  done
  case "$cmdpath|\${words[CURRENT-1]}" in
${choices.join("\n")}
  esac
  case "$cmdpath" in
${cases.join("\n")}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    _describe -t flags 'flag' flags
  elif (( \${#subcommands} > 0 )); then
    _describe -t commands 'command' subcommands
  else
    _files
  fi
}
if (( $+functions[compdef] )); then compdef _cairn cairn; else autoload -Uz compinit && compinit && compdef _cairn cairn; fi
`;
}

function fish(nodes: Node[]): string {
  const lines = nodes.flatMap((node) => {
    const at = single(`__cairn_at ${single(node.path)}`);
    const subcommands = node.subcommands.map(
      (sub) =>
        `complete -c cairn -n ${at} -f -a ${single(sub.name)} -d ${single(firstLine(sub.description))}`,
    );
    const flags = node.flags.map((flag) => {
      const name = flag.name.startsWith("--") ? `-l ${flag.name.slice(2)}` : `-s ${flag.name.slice(1)}`;
      const value =
        flag.choices.length > 0 ? ` -x -a ${single(flag.choices.join(" "))}` : flag.takesValue ? " -r" : "";
      return `complete -c cairn -n ${at} ${name}${value} -d ${single(firstLine(flag.description))}`;
    });
    return [...subcommands, ...flags];
  });
  return `# cairn completion for fish: cairn completion fish | source (docs/cli.md#shell-completion)
set -g __cairn_paths ${nodes
    .filter((node) => node.path !== "")
    .map((node) => single(node.path))
    .join(" ")}
function __cairn_path
    set -l cmdpath ""
    for token in (commandline -opc)[2..-1]
        string match -q -- '-*' $token; and continue
        set -l next (string join ' ' -- $cmdpath $token | string trim)
        contains -- $next $__cairn_paths; and set cmdpath $next
    end
    echo $cmdpath
end
function __cairn_at
    set -l cmdpath (__cairn_path)
    test "$cmdpath" = "$argv[1]"
end
complete -c cairn -e
${lines.join("\n")}
`;
}

const shells = { bash, zsh, fish } as const;

export function addCompletionCommand(program: Command): void {
  const command = program
    .command("completion")
    .description("Print a completion script for bash, zsh or fish (docs/cli.md#shell-completion)")
    .addArgument(new Argument("<shell>", "the shell").choices(Object.keys(shells)))
    .action((shell: keyof typeof shells) => {
      process.stdout.write(shells[shell](walk(program)));
    });
  withExamples(command, [
    "cairn completion fish > ~/.config/fish/completions/cairn.fish",
    "cairn completion bash > ~/.local/share/bash-completion/completions/cairn",
    `cairn completion zsh   # in ~/.zshrc: eval "$(cairn completion zsh)"`,
  ]);
}
