/**
 * The portalctl command line. Only this room touches argv, stdout, stderr and the process.
 * Command modules are imported lazily so that `validate` does not pay for the HTTP client.
 */
import { Argument, Command, Option } from 'commander';
import { reportError } from './exit.js';
import { processIO, type CommandIO } from './io.js';
import { version } from './version.js';

type Runner = (io: CommandIO) => Promise<number>;

async function run(program: Command, runner: Runner, { interrupts = true }: { interrupts?: boolean } = {}): Promise<void> {
  const globals = program.opts<{ verbose?: boolean; color?: boolean }>();
  // Every command but the emulator (which stops itself on SIGINT) says what an interrupt left behind.
  const io = processIO({ color: globals.color, interrupts });
  try {
    process.exitCode = await runner(io);
  } catch (error) {
    process.exitCode = reportError(error, io, Boolean(globals.verbose));
  }
}

export function buildProgram(): Command {
  const program = new Command('portalctl')
    .description("Keep a portal organization's administrative settings as YAML in Git.")
    .version(version, '-V, --version')
    .option('--portal <url>', 'the portal REST root (overrides portal.url)')
    .option('--state <path-or-url>', 'the state: a file (default portalctl.state.json) or postgres://user@host/db (default: $PORTALCTL_STATE)')
    .option('--state-name <name>', 'which state inside a PostgreSQL database', 'default')
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 5m)', '0s')
    .option('--insecure', 'allow plain http:// to a host that is not loopback')
    .option('--verbose', 'print more detail: each request, causes of errors')
    .option('--no-color', 'never colour the output')
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    .addHelpText(
      'after',
      `
Credentials come from the environment, never from a flag or the YAML:
  PORTALCTL_TOKEN, or PORTALCTL_USERNAME + PORTALCTL_PASSWORD, or PORTALCTL_CLIENT_ID + PORTALCTL_CLIENT_SECRET
A PostgreSQL state's password comes from PGPASSWORD, ~/.pgpass (PGPASSFILE) or its URL, and is never printed;
its URL's connect_timeout and query_timeout (seconds) bound every call to the database.

Exit codes: 0 success / no changes / in sync; 1 error; 2 changes present (plan --detailed-exitcode)
or Git ahead of the portal (drift); 3 the portal changed outside portalctl (drift); 130 interrupted.`,
    );

  // Options and the paths argument that several commands share, declared once.
  const targetOption = () => new Option('--target <address...>', 'keep only operations whose address starts with ADDRESS');
  /** `--format`, defaulting to the first of `choices`. */
  const formatOption = (choices: [string, ...string[]], description = 'output format') =>
    new Option('--format <format>', description).choices(choices).default(choices[0]);
  const refreshOption = () => new Option('--refresh <boolean>', 'false: plan against the recorded state without reading the portal').default('true');
  /** A command that reads a config from the given paths. */
  const configCommand = (name: string, description: string) =>
    program.command(name).description(description).argument('[paths...]', 'config files or directories (default: the current directory)');

  configCommand('plan', 'show the operations that would bring the portal to the configuration')
    .option('--out <file>', 'save the plan for `apply --plan`')
    .addOption(formatOption(['text', 'json', 'markdown']))
    .option('--detailed-exitcode', 'exit 0 when there is nothing to do, 2 when there are changes')
    .addOption(refreshOption())
    .addOption(targetOption())
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/plan.js')).planCommand(paths, command.optsWithGlobals(), io)),
    );

  configCommand('apply', 'apply the plan (asks on a terminal unless --auto-approve)')
    .option('--plan <file>', 'apply a plan saved with `plan --out` (refused when stale)')
    .option('--auto-approve', 'do not ask for confirmation')
    .option('--parallelism <n>', 'requests in flight at once: independent operations, and the reads before and after them', '4')
    .option('--allow-destructive', 'allow removals implied by prune: true')
    .option('--force', 'apply even when a kind\'s updates or removals exceed its safety thresholds')
    .addOption(targetOption())
    .addOption(formatOption(['text', 'json']))
    .option('--invites-dir <dir>', 'where invitation files (E13) are written', 'invites')
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/apply.js')).applyCommand(paths, command.optsWithGlobals(), io)),
    );

  configCommand('drift', 'read-only: report drift (changed outside portalctl) and pending changes; exit 0, 2 or 3')
    .addOption(formatOption(['text', 'json', 'markdown']))
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/drift.js')).driftCommand(paths, command.optsWithGlobals(), io)),
    );

  configCommand('graph', 'print the operations of the plan and their dependencies as a graph (Mermaid or DOT)')
    .addOption(formatOption(['mermaid', 'dot'], 'graph language'))
    .addOption(refreshOption())
    .addOption(targetOption())
    .action((paths: string[], _opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/graph.js')).graphCommand(paths, command.optsWithGlobals(), io)),
    );

  program
    .command('import')
    .description("write the live portal's state as a YAML config (stdout, or --out FILE)")
    .option('--out <file>', 'write the config to FILE instead of stdout')
    .option('--force', 'with --out: overwrite FILE when it exists')
    .action((_opts: unknown, command: Command) =>
      run(program, async (io) => (await import('./commands/import.js')).importCommand(command.optsWithGlobals(), io)),
    );

  const state = program.command('state').description('inspect, move or repair the recorded state (file or PostgreSQL)');
  const stateAction = (action: string) => (args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const positional = args.slice(0, -2).flatMap((value) => (Array.isArray(value) ? (value as string[]) : value === undefined ? [] : [String(value)]));
    return run(program, async (io) => (await import('./commands/state.js')).stateCommand(action, positional, command.optsWithGlobals(), io));
  };
  state.command('show').description('print the recorded state as JSON').option('--serial <n>', 'an earlier serial from the history')
    .action((...args: unknown[]) => stateAction('show')(args));
  state.command('list').description('list the recorded addresses').action((...args: unknown[]) => stateAction('list')(args));
  state.command('history').description('list the kept serials with time, command and counts').action((...args: unknown[]) => stateAction('history')(args));
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

  configCommand('validate', 'check the config against the schema and the portal\'s rules (no network)')
    .addOption(formatOption(['text', 'json']))
    .action((paths: string[], opts: { format: string }) =>
      run(program, async (io) => (await import('./commands/validate.js')).validateCommand(paths, opts, io)),
    );

  program
    .command('schema')
    .description('print the JSON Schema of the config')
    .action(() => run(program, async (io) => (await import('./commands/schema.js')).schemaCommand(io)));

  program
    .command('emulator')
    .description('run the bundled portal emulator in the foreground')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free port)').default('7080'))
    .option('--host <address>', 'address to bind to', '127.0.0.1')
    .option('--data <file>', 'organization data file (YAML or JSON)')
    .action((opts: { port: string; host: string; data?: string }) =>
      run(program, async (io) => (await import('./commands/emulator.js')).emulatorCommand(opts, io), { interrupts: false }),
    );

  program.command('completion').description('print a shell completion script').addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh'])).action((shell: 'bash' | 'zsh') => run(program, async (io) => (await import('./commands/completion.js')).completionCommand(program, shell, io)));

  return program;
}

void buildProgram().parseAsync(process.argv);
