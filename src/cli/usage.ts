/**
 * Mistakes in the command line: the `help` command, and the hints that commander's own errors
 * get (which command takes an option, a near miss of another command's option). What counts as
 * near is commander's own rule, so that every "Did you mean" of the command line means the same.
 */
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { listed } from '../core/words.js';

/** Commander's limits: at most this many edits, and more than 40% of the longer word kept. */
const MAX_EDITS = 3;
const MIN_SIMILARITY = 0.4;

/** Edits from `a` to `b`, a swap of two neighbours counting one (optimal string alignment), as commander counts. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_EDITS) return Math.max(a.length, b.length);
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

const bare = (text: string): string => text.replace(/^--/, '');

/**
 * The candidates nearest `word` by commander's rule (its `suggestSimilar`): all those at the
 * fewest edits, sorted, and how many edits that is; none when no candidate is near. Options are
 * compared without their `--`.
 */
export function nearest(word: string, candidates: readonly string[]): { names: string[]; edits: number } {
  let best = MAX_EDITS;
  let names: string[] = [];
  for (const candidate of new Set(candidates)) {
    if (bare(candidate).length <= 1) continue;
    const edits = editDistance(bare(word), bare(candidate));
    const longer = Math.max(bare(word).length, bare(candidate).length);
    if ((longer - edits) / longer <= MIN_SIMILARITY || edits > best) continue;
    names = edits < best ? [candidate] : [...names, candidate];
    best = edits;
  }
  return { names: names.sort((a, b) => a.localeCompare(b)), edits: best };
}


/** Every command under `parent`, with the words that run it (`state rm`). */
function subcommandPaths(parent: Command, prefix = ''): { command: Command; path: string }[] {
  return parent.commands.flatMap((command) => {
    const path = `${prefix}${command.name()}`;
    return [{ command, path }, ...subcommandPaths(command, `${path} `)];
  });
}

/** Commands named in a hint: past this many, the first few and how many more (most commands take `--format`). */
const COMMANDS_NAMED = 4;

/** `apply and import`; for an option most commands take, `plan, apply, drift and 8 other commands`. */
function commandsInWords(paths: readonly string[]): string {
  if (paths.length <= COMMANDS_NAMED) return listed(paths);
  const named = paths.slice(0, COMMANDS_NAMED - 1);
  return `${named.join(', ')} and ${paths.length - named.length} other commands`;
}

/**
 * Commander's "unknown option" error says which commands take the option when others do
 * (`plan --parallelism 3`: apply's). Commander looks only at the command's own options (and the
 * global ones), so its "Did you mean" would guess a typo in a flag spelt right (`schema --format`
 * got `--portal?`), and it has nothing to say of a typo in another command's option
 * (`validate --auto-aprove`), or guesses a farther one of its own (`plan --forced`: `--format`,
 * not apply's `--force`): such a typo gets the option and its commands. A flag near no option
 * keeps commander's text.
 */
export function withOptionOwners(program: Command, commanderText: string): string {
  const unknown = /^(error: unknown option '(--[^'=]+)[^']*')(?:\n\(Did you mean (?:one of )?(--[^,?]+))?/.exec(commanderText);
  if (unknown === null) return commanderText;
  const [, firstLine, flag, ownSuggestion] = unknown;
  if (flag === undefined) return commanderText;
  const commands = subcommandPaths(program);
  const ownersOf = (long: string): string[] => commands.filter(({ command }) => command.options.some((option) => option.long === long)).map(({ path }) => path);
  const owners = ownersOf(flag);
  if (owners.length > 0) return `${firstLine}\n(${flag} is an option of ${commandsInWords(owners)})\n`;
  const near = nearest(flag, commands.flatMap(({ command }) => command.options.flatMap((option) => (option.long && !option.hidden ? [option.long] : []))));
  if (near.names.length === 0 || (ownSuggestion !== undefined && editDistance(bare(flag), bare(ownSuggestion)) <= near.edits)) return commanderText;
  return `${firstLine}\n(Did you mean ${listed(near.names.map((long) => `${long}, an option of ${commandsInWords(ownersOf(long))}`), Number.POSITIVE_INFINITY, 'or')}?)\n`;
}

/** A `help` command (below) for `parent` and each of its commands that has subcommands (`state`), added last, as commander's own. */
export function addHelpCommands(parent: Command): void {
  for (const command of parent.commands) if (command.commands.length > 0) addHelpCommands(command);
  addHelpCommand(parent);
}

/**
 * The words of `help`'s operands that name a command: commander passes the first unknown option
 * and every word after it with them, wherever the option stands (`help --format json nosuch`,
 * `help nosuch --format json`). An option's value is no command word: any option of the command
 * line that takes one (`--format json`) takes the word after it, unless written `--format=json`.
 */
function commandWords(args: readonly string[], parent: Command): string[] {
  let root = parent;
  while (root.parent) root = root.parent;
  const takesValue = new Set(
    [root, ...subcommandPaths(root).map(({ command }) => command)].flatMap((command) => command.options.flatMap((option) => (option.required || option.optional ? [option.long, option.short] : []))),
  );
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (!word.startsWith('-')) words.push(word);
    else if (takesValue.has(word)) index++;
  }
  return words;
}

/**
 * `help [command...]` for `parent` in place of commander's: commander's prints the whole help,
 * as an error, for a command it does not know (`help nosuch`). This one says it as commander says
 * an unknown command (`unknown command 'nosuch'`, with the nearest names), and takes the words
 * of a nested command (`help state show`). Options beside the words change nothing, as beside
 * `COMMAND --help` (commander prints that help whatever follows): `help nosuch --format json` is
 * the unknown command, said as the JSON error document the argv's `--format json` asks for, not
 * an unknown option of `help`.
 */
function addHelpCommand(parent: Command): void {
  parent
    .helpCommand(false)
    .command('help')
    .description('display help for command')
    .argument('[command...]', 'the command, with its subcommand if it has one (state show)')
    .allowUnknownOption()
    .action((args: string[]) => {
      const words = commandWords(args, parent);
      let command: Command = parent;
      for (const word of words) {
        const found = command.commands.find((candidate) => candidate.name() === word || candidate.aliases().includes(word));
        if (found === undefined) {
          const names = command.createHelp().visibleCommands(command).flatMap((candidate) => [candidate.name(), ...candidate.aliases()]);
          const near = nearest(word, names).names;
          const suggestion = near.length === 0 ? '' : `\n(Did you mean ${near.length === 1 ? near[0] : `one of ${near.join(', ')}`}?)`;
          command.error(`error: unknown command '${word}'${suggestion}`, { code: 'commander.unknownCommand' });
        }
        command = found;
      }
      command.help();
    });
}

/** The shared options a command may not read (commander's keys): --verbose and --no-color mean something to every command. */
export type GlobalOptionKey = 'portal' | 'state' | 'stateName' | 'env' | 'allEnvs' | 'envParallelism' | 'lockTimeout' | 'requestTimeout' | 'insecure';

/** The shared options a command does not read, and what it does instead (`reads only the plan file`). */
export interface UnreadGlobalOptions {
  options: readonly GlobalOptionKey[];
  because: string;
}

/** Whether the command line (not a default) gave `key`. */
const given = (program: Command, key: GlobalOptionKey): boolean => program.getOptionValueSource(key) === 'cli';

/**
 * A shared option the command does not read is refused before anything is read: taken and
 * ignored, it would let the user believe it did something (`show --state`, `validate
 * --lock-timeout`). `--env-parallelism` means something only where environments run at once: a
 * command that runs a fleet (it reads the option) refuses it for one environment or none.
 */
export async function refuseUnreadGlobalOptions(program: Command, command: Command, unread: UnreadGlobalOptions | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  const path = commandPath(command);
  const flagOf = (key: GlobalOptionKey): string => program.options.find((option) => option.attributeName() === key)?.long ?? key;
  const refused = (unread?.options ?? []).filter((key) => given(program, key)).map(flagOf);
  if (refused.length > 0) {
    const [verb, pronoun] = refused.length === 1 ? ['has', 'it'] : ['have', 'them'];
    throw new UsageError(`\`${path}\` ${unread?.because ?? ''}, so ${listed(refused)} ${verb} nothing to do there: leave ${pronoun} out.`);
  }
  if (given(program, 'envParallelism')) {
    const { isFleet, requestedEnvironments } = await import('./environments.js');
    if (!isFleet(requestedEnvironments(program.opts(), env))) {
      throw new UsageError('--env-parallelism sets how many environments of --env a,b or --all-envs run at once, but this run is in one environment or none: leave it out.');
    }
  }
}

/** The words that run `command` (`state show`). */
function commandPath(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}
