/**
 * `portalctl completion bash|zsh`: a completion script generated from the commander program
 * itself (its commands, options, choices and arguments), so it can never miss a command or a
 * flag that the CLI has.
 */
import type { Command, Option } from 'commander';
import type { CommandIO } from '../io.js';

export type Shell = 'bash' | 'zsh';

interface FlagInfo {
  flags: string[];
  description: string;
  /** The option takes a value (`--out <file>`). */
  takesValue: boolean;
  repeatable: boolean;
  choices: string[];
}

interface CommandInfo {
  name: string;
  /** The words that lead to it after the program's name, joined by "/" (e.g. "state/show"). */
  path: string;
  description: string;
  options: FlagInfo[];
  /** Choices of the first argument (e.g. completion bash|zsh), when it has them. */
  argumentChoices: string[];
  takesPaths: boolean;
  /** Nested commands (e.g. state show|list|...); empty for a leaf. */
  subcommands: CommandInfo[];
}

const HELP: FlagInfo = { flags: ['-h', '--help'], description: 'display help', takesValue: false, repeatable: false, choices: [] };

function flagInfo(option: Option): FlagInfo {
  return {
    flags: [option.short, option.long].filter((flag): flag is string => Boolean(flag)),
    description: option.description,
    takesValue: option.required || option.optional,
    repeatable: option.variadic,
    choices: option.argChoices ?? [],
  };
}

const visible = (options: readonly Option[]): FlagInfo[] => options.filter((option) => !option.hidden).map(flagInfo);

/**
 * The commands a completion offers: not `help` (src/cli/usage.ts), which says what `--help`
 * says and, taking command names, would otherwise complete file names after it.
 */
const completed = (commands: readonly Command[]): Command[] => commands.filter((command) => command.name() !== 'help');

function describeCommand(command: Command, parent: string): CommandInfo {
  const path = parent ? `${parent}/${command.name()}` : command.name();
  return {
    name: command.name(),
    path,
    description: command.description(),
    options: [...visible(command.options), HELP],
    argumentChoices: command.registeredArguments[0]?.argChoices ?? [],
    takesPaths: command.registeredArguments.some((argument) => argument.variadic),
    subcommands: completed(command.commands).map((subcommand) => describeCommand(subcommand, path)),
  };
}

/** Every command at every depth, parents before their subcommands. */
const flatten = (commands: readonly CommandInfo[]): CommandInfo[] => commands.flatMap((command) => [command, ...flatten(command.subcommands)]);

function describeProgram(program: Command): { globals: FlagInfo[]; commands: CommandInfo[] } {
  return {
    globals: [...visible(program.options), HELP],
    commands: completed(program.commands).map((command) => describeCommand(command, '')),
  };
}

/** Words safe inside a bash double-quoted word list: ours are flags and plain choices. */
const words = (list: readonly string[]): string => list.join(' ');

export function bashCompletion(program: Command): string {
  const { globals, commands } = describeProgram(program);
  const all = flatten(commands);
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}_completion`;
  const allValueFlags = [...globals, ...all.flatMap((command) => command.options)].filter((flag) => flag.takesValue);
  const choiceCases = [
    ...globals.filter((flag) => flag.choices.length).map((flag) => `    *:${flag.flags.at(-1)}) COMPREPLY=($(compgen -W "${words(flag.choices)}" -- "$cur")); return ;;`),
    ...all.flatMap((command) =>
      command.options.filter((flag) => flag.choices.length).map((flag) => `    ${command.path}:${flag.flags.at(-1)}) COMPREPLY=($(compgen -W "${words(flag.choices)}" -- "$cur")); return ;;`),
    ),
  ];
  const parents = all.filter((command) => command.subcommands.length);
  const valueFlags = [...new Set(allValueFlags.flatMap((flag) => flag.flags))];
  // A parent's "choices" are its subcommands; a leaf's, its first argument's choices.
  const choicesOf = (command: CommandInfo) => (command.subcommands.length ? command.subcommands.map((subcommand) => subcommand.name) : command.argumentChoices);
  return `# ${name} completion for bash, generated from the command definitions.
# Load it with: source <(${name} completion bash)   (or save it in ~/.local/share/bash-completion/completions/${name})
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local commands="${words(commands.map((command) => command.name))}"
  local globals="${words(globals.flatMap((flag) => flag.flags))}"
  # The command path so far ("state/show"): each word that names a command of the path before it.
  local command="" children i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "$command" in
      "") children="$commands" ;;
${parents.map((parent) => `      ${parent.path}) children="${words(parent.subcommands.map((subcommand) => subcommand.name))}" ;;`).join('\n')}
      *) children="" ;;
    esac
    case " $children " in *" \${COMP_WORDS[i]} "*) command="\${command:+$command/}\${COMP_WORDS[i]}" ;; esac
  done
  case "$command:$prev" in
${choiceCases.join('\n')}
  esac
  # The value of an option that takes one: files and directories (bash's default).
  case "$prev" in ${valueFlags.length ? valueFlags.join('|') : '--'}) COMPREPLY=(); return ;; esac
  local options="" choices=""
  case "$command" in
    "") if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$globals" -- "$cur")); else COMPREPLY=($(compgen -W "$commands" -- "$cur")); fi; return ;;
${all.map((command) => `    ${command.path}) options="${words(command.options.flatMap((flag) => flag.flags))}"; choices="${words(choicesOf(command))}" ;;`).join('\n')}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options $globals" -- "$cur"))
  elif [[ -n $choices ]]; then
    COMPREPLY=($(compgen -W "$choices" -- "$cur"))
  fi
}
complete -o default -F ${fn} ${name}
`;
}

/** Text inside a single-quoted zsh _arguments spec: quote, brackets and colons escaped. */
const zshText = (text: string): string => text.replace(/\\/g, '\\\\').replace(/'/g, "'\\''").replace(/([[\]:])/g, '\\$1');

function zshSpecs(flags: readonly FlagInfo[]): string[] {
  return flags.flatMap((flag) =>
    flag.flags.map((single) => {
      const value = flag.takesValue ? `:${zshText(single.replace(/^-+/, ''))}:${flag.choices.length ? `(${flag.choices.join(' ')})` : '_files'}` : '';
      return `'${flag.repeatable ? '*' : ''}${single}[${zshText(flag.description)}]${value}'`;
    }),
  );
}

const zshEntries = (commands: readonly CommandInfo[]): string[] => commands.map((command) => `'${command.name}:${zshText(command.description)}'`);

/**
 * The completion of one command's words, `$words[1]` being the command itself: `_arguments`
 * for a leaf; for a parent, its subcommands described, then (words shifted) the chosen one's.
 */
function zshCommandBody(command: CommandInfo, globals: readonly FlagInfo[], depth: number): string[] {
  const pad = ' '.repeat(depth);
  if (!command.subcommands.length) {
    const positional = command.argumentChoices.length ? `'1:${command.name}:(${command.argumentChoices.join(' ')})'` : command.takesPaths ? "'*:path:_files'" : "'*: :'";
    return [`${pad}_arguments \\`, ...[...zshSpecs(command.options), ...zshSpecs(globals)].map((spec) => `${pad}  ${spec} \\`), `${pad}  ${positional}`];
  }
  return [
    `${pad}if (( CURRENT == 2 )); then`,
    `${pad}  local -a subcommands`,
    `${pad}  subcommands=(`,
    ...zshEntries(command.subcommands).map((entry) => `${pad}    ${entry}`),
    `${pad}  )`,
    `${pad}  _describe '${command.path.replace(/\//g, ' ')} command' subcommands`,
    `${pad}else`,
    `${pad}  shift words; (( CURRENT-- ))`,
    `${pad}  case $words[1] in`,
    ...command.subcommands.flatMap((subcommand) => [`${pad}    (${subcommand.name})`, ...zshCommandBody(subcommand, globals, depth + 6), `${pad}      ;;`]),
    `${pad}  esac`,
    `${pad}fi`,
  ];
}

export function zshCompletion(program: Command): string {
  const { globals, commands } = describeProgram(program);
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const indent = (lines: string[], spaces: number) => lines.map((line) => `${' '.repeat(spaces)}${line} \\`).join('\n');
  const commandCases = commands.map((command) => [`        (${command.name})`, ...zshCommandBody(command, globals, 10), '          ;;'].join('\n'));
  return `#compdef ${name}
# ${name} completion for zsh, generated from the command definitions.
# Load it with: source <(${name} completion zsh)   (or save it as _${name} in a directory of $fpath)
${fn}() {
  local -a commands
  commands=(
${zshEntries(commands).map((entry) => `    ${entry}`).join('\n')}
  )
  local curcontext="$curcontext" state line
  _arguments -C \\
${indent(zshSpecs(globals), 4)}
    '1: :->command' \\
    '*:: :->args'
  case $state in
    (command) _describe '${name} command' commands ;;
    (args)
      case $line[1] in
${commandCases.join('\n')}
      esac
      ;;
  esac
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}

export async function completionCommand(program: Command, shell: Shell, io: CommandIO): Promise<number> {
  io.stdout(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
  return 0;
}
