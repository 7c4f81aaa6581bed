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
  description: string;
  options: FlagInfo[];
  /** Choices of the first argument (e.g. state show|list|unlock), when it has them. */
  argumentChoices: string[];
  takesPaths: boolean;
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

function describeProgram(program: Command): { globals: FlagInfo[]; commands: CommandInfo[] } {
  const visible = (options: readonly Option[]) => options.filter((option) => !option.hidden).map(flagInfo);
  return {
    globals: [...visible(program.options), HELP],
    commands: program.commands.map((command) => ({
      name: command.name(),
      description: command.description(),
      options: [...visible(command.options), HELP],
      argumentChoices: command.registeredArguments[0]?.argChoices ?? [],
      takesPaths: command.registeredArguments.some((argument) => argument.variadic),
    })),
  };
}

/** Words safe inside a bash double-quoted word list: ours are flags and plain choices. */
const words = (list: readonly string[]): string => list.join(' ');

export function bashCompletion(program: Command): string {
  const { globals, commands } = describeProgram(program);
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}_completion`;
  const allValueFlags = [...globals, ...commands.flatMap((command) => command.options)].filter((flag) => flag.takesValue);
  const choiceCases = [
    ...globals.filter((flag) => flag.choices.length).map((flag) => `    *:${flag.flags.at(-1)}) COMPREPLY=($(compgen -W "${words(flag.choices)}" -- "$cur")); return ;;`),
    ...commands.flatMap((command) =>
      command.options.filter((flag) => flag.choices.length).map((flag) => `    ${command.name}:${flag.flags.at(-1)}) COMPREPLY=($(compgen -W "${words(flag.choices)}" -- "$cur")); return ;;`),
    ),
  ];
  const valueFlags = [...new Set(allValueFlags.flatMap((flag) => flag.flags))];
  return `# ${name} completion for bash, generated from the command definitions.
# Load it with: source <(${name} completion bash)   (or save it in ~/.local/share/bash-completion/completions/${name})
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local commands="${words(commands.map((command) => command.name))}"
  local globals="${words(globals.flatMap((flag) => flag.flags))}"
  local command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case " $commands " in *" \${COMP_WORDS[i]} "*) command="\${COMP_WORDS[i]}"; break ;; esac
  done
  case "$command:$prev" in
${choiceCases.join('\n')}
  esac
  # The value of an option that takes one: files and directories (bash's default).
  case "$prev" in ${valueFlags.length ? valueFlags.join('|') : '--'}) COMPREPLY=(); return ;; esac
  local options="" choices=""
  case "$command" in
    "") if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$globals" -- "$cur")); else COMPREPLY=($(compgen -W "$commands" -- "$cur")); fi; return ;;
${commands.map((command) => `    ${command.name}) options="${words(command.options.flatMap((flag) => flag.flags))}"; choices="${words(command.argumentChoices)}" ;;`).join('\n')}
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

export function zshCompletion(program: Command): string {
  const { globals, commands } = describeProgram(program);
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const indent = (lines: string[], spaces: number) => lines.map((line) => `${' '.repeat(spaces)}${line} \\`).join('\n');
  const commandCases = commands.map((command) => {
    const positional = command.argumentChoices.length ? `'1:${command.name}:(${command.argumentChoices.join(' ')})'` : command.takesPaths ? "'*:path:_files'" : "'*: :'";
    return `        (${command.name})\n          _arguments \\\n${indent([...zshSpecs(command.options), ...zshSpecs(globals)], 12)}\n            ${positional}\n          ;;`;
  });
  return `#compdef ${name}
# ${name} completion for zsh, generated from the command definitions.
# Load it with: source <(${name} completion zsh)   (or save it as _${name} in a directory of $fpath)
${fn}() {
  local -a commands
  commands=(
${commands.map((command) => `    '${command.name}:${zshText(command.description)}'`).join('\n')}
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
