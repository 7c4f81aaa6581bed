/**
 * The portalctl command line. Only this room touches argv, stdout, stderr and the process.
 * Command modules are imported lazily so that `validate` does not pay for the HTTP client.
 */
import { Argument, Command, Option } from 'commander';
import { asksForJson, commandLineErrorDocument, reportError } from './exit.js';
import { parseDuration, parsePositiveInt, requestTimeoutMs } from './flag-values.js';
import { processIO, type CommandIO } from './io.js';
import { addHelpCommands, refuseUnreadGlobalOptions, type GlobalOptionKey, type UnreadGlobalOptions, withOptionOwners } from './usage.js';
import { version } from './version.js';
import type { EmulatorCommandOptions } from './commands/emulator.js';

type Runner = (io: CommandIO) => Promise<number>;

async function run(
  program: Command,
  runner: Runner,
  { interrupts = true, command, unread }: { interrupts?: boolean; command?: Command; unread?: UnreadGlobalOptions } = {},
): Promise<void> {
  const globals = program.opts<{ verbose?: boolean; color?: boolean }>();
  // Every command but the emulator (which stops itself on SIGINT) says what an interrupt left behind.
  const io = processIO({ color: globals.color, interrupts });
  try {
    checkGlobalFlagValues(program);
    if (command) await refuseUnreadGlobalOptions(program, command, unread, io.env);
    process.exitCode = await runner(io);
  } catch (error) {
    // Under --format json an error is JSON on stdout too, so a script reads one document either way.
    const json = command?.opts<{ format?: string }>().format === 'json';
    process.exitCode = reportError(error, io, { verbose: Boolean(globals.verbose), json });
  }
}

/**
 * Global flags' values, checked for every command, also those that do not read them (`plan` takes
 * no lock): a mistyped value in a job's shared flags is said at once, not when a later command
 * reads it.
 */
function checkGlobalFlagValues(program: Command): void {
  const { lockTimeout, envParallelism, requestTimeout } = program.opts<{ lockTimeout?: string; envParallelism?: string; requestTimeout?: string }>();
  parseDuration(lockTimeout, '--lock-timeout');
  requestTimeoutMs(requestTimeout);
  if (envParallelism !== undefined) parsePositiveInt(envParallelism, '--env-parallelism');
}

/**
 * Help shows choices and defaults as they are typed (`(default: 4)`, `(choices: text, json;
 * default: text)`), where commander writes them as JSON (`"4"`), which reads as if the quotes
 * were part of the value. The values themselves stay strings: only the text changes.
 */
function describeOption(option: Option): string {
  // As commander: a default is shown for an option that takes a value, not for a flag such as --no-color.
  return withChoicesAndDefault(option, option.required || option.optional);
}

function describeArgument(argument: Argument): string {
  return withChoicesAndDefault(argument, true);
}

function withChoicesAndDefault(item: Option | Argument, showsDefault: boolean): string {
  const extras: string[] = [];
  if (item.argChoices) extras.push(`choices: ${item.argChoices.map(asTyped).join(', ')}`);
  const defaultValue: unknown = item.defaultValue;
  if (defaultValue !== undefined && showsDefault) extras.push(`default: ${item.defaultValueDescription ?? asTyped(defaultValue)}`);
  return extras.length === 0 ? item.description : `${item.description} (${extras.join('; ')})`;
}

/** A value as it is typed on a command line: a plain word as it is, anything else quoted. */
function asTyped(value: unknown): string {
  return typeof value === 'string' && /^[\w.,:/@+-]+$/.test(value) ? value : JSON.stringify(value);
}

/** The command line; `argv` tells whether a mistake in it is said as the JSON error document (`--format json`). */
export function buildProgram(argv: readonly string[]): Command {
  const program = new Command('portalctl')
    .description("Keep a portal organization's administrative settings as YAML in Git.")
    .version(version, '-V, --version')
    .option('--portal <url>', 'the portal REST root (overrides portal.url)')
    .option('--state <path-or-url>', 'the state: a file or a postgres://user@host/db URL (default: $PORTALCTL_STATE when set, else the file portalctl.state.json)')
    .option('--state-name <name>', 'which state inside a PostgreSQL database (default: default, or the environment\'s state)')
    .option('--env <names>', 'the environment(s) to run in, declared under environments: (NAME, or a,b for several; default: $PORTALCTL_ENV)')
    .option('--all-envs', 'run in every declared environment')
    .option('--env-parallelism <n>', 'environments run at once by --env a,b or --all-envs', '4')
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 5m; a bare number is seconds)', '0s')
    .option('--request-timeout <duration>', "how long to wait for each answer of the portal (e.g. 2m for a slow one)", '30s')
    .option('--insecure', 'allow plain http:// to a host that is not loopback')
    .option('--verbose', 'print more detail: each request, causes of errors')
    .option('--no-color', 'never colour the output')
    .configureHelp({ showGlobalOptions: true, optionDescription: describeOption, argumentDescription: describeArgument })
    .addHelpText(
      'after',
      `
Credentials come from the environment, never from a flag or the YAML:
  PORTALCTL_TOKEN, or PORTALCTL_USERNAME + PORTALCTL_PASSWORD, or PORTALCTL_CLIENT_ID + PORTALCTL_CLIENT_SECRET
  (or the variables an environment names under environments.<name>.credentials)
A PostgreSQL state's password comes from PGPASSWORD, ~/.pgpass (PGPASSFILE) or its URL, and is never printed;
its URL's connect_timeout and query_timeout (seconds) bound every call to the database.

Exit codes: 0 success / no changes / in sync; 1 error; 2 changes present (plan --detailed-exitcode)
or Git ahead of the portal (drift); 3 the portal changed outside portalctl (drift); 130 interrupted.
Over several environments: the worst of theirs.`,
    );

  // Options and the paths argument that several commands share, declared once.
  const targetOption = () => new Option('--target <address...>', 'keep only the operations ADDRESS selects, by whole steps (role selects every role)');
  /** `--format`, defaulting to the first of `choices`. */
  const formatOption = (choices: [string, ...string[]], description = 'output format') =>
    new Option('--format <format>', description).choices(choices).default(choices[0]);
  const refreshOption = () => new Option('--refresh <boolean>', 'false: plan against the recorded state without reading the portal').default('true');
  /** For the commands that only read the config: nothing is planned from a config with a hole in it. */
  const allowUnsetEnvOption = () =>
    new Option('--allow-unset-env', "an unset ${env:NAME}, or a ${file:path} whose file is absent, is a warning and the fields that use it are not checked (without the environments' variables and secrets, e.g. in a pre-commit hook)");
  /** The shared options each command does not read, refused when given (usage.ts, refuseUnreadGlobalOptions). */
  const everyShared: GlobalOptionKey[] = ['portal', 'state', 'stateName', 'env', 'allEnvs', 'envParallelism', 'lockTimeout', 'requestTimeout', 'insecure'];
  const readsOnlyConfig: UnreadGlobalOptions = { options: ['state', 'stateName', 'envParallelism', 'lockTimeout', 'requestTimeout', 'insecure'], because: 'reads only the config (no network, no state)' };
  const unread = {
    show: { options: ['portal', 'state', 'stateName', 'envParallelism', 'lockTimeout', 'requestTimeout', 'insecure'], because: 'reads only the plan file (no portal, no state)' },
    graph: { options: ['envParallelism', 'lockTimeout'], because: 'plans in one environment and takes no lock' },
    import: { options: ['state', 'stateName', 'envParallelism', 'lockTimeout'], because: 'keeps no state and reads one portal' },
    state: { options: ['portal', 'requestTimeout', 'insecure', 'envParallelism'], because: 'reads and writes only the state of one environment, never the portal' },
    validate: readsOnlyConfig,
    config: readsOnlyConfig,
    schema: { options: everyShared, because: 'reads no config, portal or state' },
    completion: { options: everyShared, because: 'reads no config, portal or state' },
    emulator: { options: everyShared, because: 'serves a portal of its own and reads no config or state' },
  } satisfies Record<string, UnreadGlobalOptions>;
  /** A command that reads a config from the given paths. */
  const configCommand = (name: string, description: string) =>
    program.command(name).description(description).argument('[paths...]', 'config files or directories (default: the current directory)');

  configCommand('plan', 'show the operations that would bring the portal to the configuration')
    .option('--out <file>', 'save the plan for `apply --plan`')
    .addOption(formatOption(['text', 'json', 'markdown']))
    .option('--detailed-exitcode', 'exit 0 when there is nothing to do, 2 when there are changes (or a write to record)')
    .addOption(refreshOption())
    .addOption(targetOption())
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/plan.js')).planCommand(paths, command.optsWithGlobals(), io), { command }),
    );

  configCommand('apply', 'apply the plan (asks on a terminal unless --auto-approve)')
    .option('--plan <file>', 'apply a plan saved with `plan --out` (refused when stale)')
    .option('--refresh-only', 'record the live values of the managed objects in the state, sending nothing to the portal (accepts drift)')
    .option('--auto-approve', 'do not ask for confirmation')
    .option('--parallelism <n>', 'requests in flight at once: independent operations, and the reads before and after them', '4')
    .option('--allow-destructive', 'allow removals implied by prune: true')
    .option('--force', 'apply even when a kind\'s updates or removals exceed its safety thresholds')
    .addOption(targetOption())
    .addOption(formatOption(['text', 'json']))
    .option('--invites-dir <dir>', 'where invitation files (E13) are written', 'invites')
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/apply.js')).applyCommand(paths, command.optsWithGlobals(), io), { command }),
    );

  configCommand('drift', 'read-only: report drift (changed outside portalctl) and pending changes; exit 0, 2 or 3')
    .addOption(formatOption(['text', 'json', 'markdown']))
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/drift.js')).driftCommand(paths, command.optsWithGlobals(), io), { command }),
    );

  program
    .command('show')
    .description('render a plan saved with `plan --out` (no network, no state)')
    .argument('<planfile>', 'the saved plan')
    .addOption(formatOption(['text', 'markdown', 'json']))
    .action((planfile: string, _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/show.js')).showCommand(planfile, command.optsWithGlobals(), io), { command, unread: unread.show }),
    );

  configCommand('graph', 'print the operations of the plan and their dependencies as a graph (Mermaid or DOT)')
    .addOption(formatOption(['mermaid', 'dot'], 'graph language'))
    .addOption(refreshOption())
    .addOption(targetOption())
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/graph.js')).graphCommand(paths, command.optsWithGlobals(), io), { command, unread: unread.graph }),
    );

  program
    .command('import')
    .description("write the live portal's state as a YAML config (stdout, or --out FILE)")
    .argument('[paths...]', "the config whose portal to read (its portal.url, unless --portal); with --env: the config declaring the environment (default: the current directory)")
    .option('--out <file>', 'write the config to FILE instead of stdout')
    .option('--force', 'with --out: overwrite FILE when it exists')
    .option('--by-name', 'write roles, groups, items, the federation, collaborations and workspaces by name instead of id (the same config then fits portals whose ids differ)')
    .addOption(formatOption(['yaml', 'json'], 'yaml: the config; json: a report of what was imported, with the config (or the --out file) in it'))
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/import.js')).importCommand(paths, command.optsWithGlobals(), io), { command, unread: unread.import }),
    );

  const stateGroup = program.command('state').description('inspect, move or repair the recorded state (file or PostgreSQL)');
  // Every state command takes the config that declares --env's environment.
  const state = {
    command: (name: string) => stateGroup.command(name).option('--config <path>', 'with --env: the config that declares the environment (default: the current directory)'),
  };
  const stateAction = (action: string) => (args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const positional = args.slice(0, -2).flatMap((value) => (Array.isArray(value) ? (value as string[]) : value === undefined ? [] : [String(value)]));
    return run(program, async (io) => (await import('./commands/state.js')).stateCommand(action, positional, command.optsWithGlobals(), io), { command, unread: unread.state });
  };
  state.command('show').description('print the recorded state as JSON, or the resource at ADDRESS').argument('[address]').option('--serial <n>', 'an earlier serial from the history')
    .addOption(formatOption(['text', 'json'])).action((...args: unknown[]) => stateAction('show')(args));
  state.command('list').description('list the recorded addresses with kind, status and time').addOption(formatOption(['text', 'json']))
    .action((...args: unknown[]) => stateAction('list')(args));
  state.command('history').description('list the kept serials with time, command and counts').addOption(formatOption(['text', 'json']))
    .action((...args: unknown[]) => stateAction('history')(args));
  state.command('unlock').description('remove a stuck lock (with an id, only that lock)').argument('[lock-id]')
    .action((...args: unknown[]) => stateAction('unlock')(args));
  state.command('rm').description('forget addresses without touching the portal (new serial)').argument('<address...>')
    .option('--dry-run', 'show what would be forgotten, change nothing').action((...args: unknown[]) => stateAction('rm')(args));
  state.command('mv').description("move an address's record to another address (new serial)").argument('<from>').argument('<to>')
    .option('--dry-run', 'show what would move, change nothing').action((...args: unknown[]) => stateAction('mv')(args));
  state.command('push').description('copy the state at SOURCE (file or postgres:// URL) into --state, keeping lineage and serial').argument('<source>')
    .option('--source-name <name>', 'the state name at a postgres:// SOURCE', 'default').option('--dry-run', 'check only, copy nothing')
    .action((...args: unknown[]) => stateAction('push')(args));
  state.command('pull').description('copy the --state state to DESTINATION (file or postgres:// URL), keeping lineage and serial').argument('<destination>')
    .option('--destination-name <name>', 'the state name at a postgres:// DESTINATION', 'default').option('--dry-run', 'check only, copy nothing')
    .action((...args: unknown[]) => stateAction('pull')(args));

  configCommand('validate', 'check the config against the schema and the portal\'s rules (no network); in each environment it declares')
    .addOption(formatOption(['text', 'json']))
    .addOption(allowUnsetEnvOption())
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/validate.js')).validateCommand(paths, command.optsWithGlobals(), io), { command, unread: unread.validate }),
    );

  configCommand('config', 'print the effective config (with --env: the environment\'s overlays merged, its values in place), each value with where it was written')
    .addOption(formatOption(['yaml', 'json']))
    .addOption(allowUnsetEnvOption())
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/config.js')).configCommand(paths, command.optsWithGlobals(), io), { command, unread: unread.config }),
    );

  program
    .command('schema')
    .description('print the JSON Schema of the config')
    .action((_opts: unknown, command: Command) => run(program, async (io) => (await import('./commands/schema.js')).schemaCommand(io), { command, unread: unread.schema }));

  program
    .command('emulator')
    .description('run the bundled portal emulator in the foreground')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free port)').default('7080'))
    .option('--host <address>', 'address to bind to', '127.0.0.1')
    .option('--data <file>', 'organization data file (YAML or JSON)')
    .option('--tls', 'serve HTTPS with a certificate signed by a new test authority (see --tls-ca-out)')
    .option('--tls-cert <file>', 'serve HTTPS with this certificate (PEM; with --tls-key)')
    .option('--tls-key <file>', 'the private key of --tls-cert (PEM)')
    .option('--tls-ca-out <file>', "with --tls: where to write the test authority's certificate, for NODE_EXTRA_CA_CERTS (default: portalctl-emulator-ca.pem)")
    .action((opts: EmulatorCommandOptions, command: Command) =>
      run(program, async (io) => (await import('./commands/emulator.js')).emulatorCommand(opts, io), { interrupts: false, command, unread: unread.emulator }),
    );

  program.command('completion').description('print a shell completion script').addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh'])).action((shell: 'bash' | 'zsh', _opts: unknown, command: Command) => run(program, async (io) => (await import('./commands/completion.js')).completionCommand(program, shell, io), { command, unread: unread.completion }));

  addHelpCommands(program);
  reportMistakes(program, program, asksForJson(argv));
  return program;
}

/** Whether `command` prints its result as JSON on `--format json`. */
function answersInJson(command: Command): boolean {
  return command.options.some((option) => option.long === '--format' && (option.argChoices ?? []).includes('json'));
}

/**
 * How a mistake in the command line is said, for `command` and those under it. Under --format
 * json it is the JSON error document on stdout, for a command that answers in JSON, and where no
 * command is known yet (an unknown command, also one given to `help`). A command with no JSON
 * output (schema, emulator, graph, state unlock, …) takes `--format json` as any option it does
 * not take, on stderr as `schema --format yaml` is: it has no document to answer with.
 */
function reportMistakes(program: Command, command: Command, argvAsksForJson: boolean): void {
  const choosesCommand = command.commands.length > 0 || command.name() === 'help';
  const json = argvAsksForJson && (choosesCommand || answersInJson(command));
  command
    .configureOutput({
      outputError: (commanderText, write) => {
        const text = withOptionOwners(program, commanderText);
        return json ? process.stdout.write(commandLineErrorDocument(text)) : write(text);
      },
    })
    // A hint, not the whole help: 60 lines after a mistyped word bury the error and its suggestion.
    // Not under --format json, whose reader is a script: the document is all it gets, stderr stays
    // empty, as for every other error.
    .showHelpAfterError(json ? false : '(add --help for usage)');
  for (const subcommand of command.commands) reportMistakes(program, subcommand, argvAsksForJson);
}

void buildProgram(process.argv).parseAsync(process.argv);
