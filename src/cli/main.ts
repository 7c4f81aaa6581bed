#!/usr/bin/env node
/**
 * The portalctl command line. Only this room touches argv, stdout, stderr and the process.
 * Command modules are imported lazily so that `validate` does not pay for the HTTP client.
 */
import { Command, Option } from 'commander';
import { createRequire } from 'node:module';
import { reportError } from './exit.js';
import { processIO, type CommandIO } from './io.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

type Runner = (io: CommandIO) => Promise<number>;

async function run(program: Command, runner: Runner): Promise<void> {
  const globals = program.opts<{ verbose?: boolean; color?: boolean }>();
  const io = processIO({ color: globals.color });
  try {
    process.exitCode = await runner(io);
  } catch (error) {
    process.exitCode = reportError(error, io.stderr, Boolean(globals.verbose));
  }
}

export function buildProgram(): Command {
  const program = new Command('portalctl')
    .description("Keep a portal organization's administrative settings as YAML in Git.")
    .version(version, '-V, --version')
    .option('--verbose', 'print more detail, including causes of errors')
    .option('--no-color', 'never colour the output')
    .showHelpAfterError()
    .enablePositionalOptions();

  program
    .command('emulator')
    .description('run the bundled portal emulator in the foreground')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free port)').default('7080'))
    .option('--host <address>', 'address to bind to', '127.0.0.1')
    .option('--data <file>', 'organization data file (YAML or JSON)')
    .action((opts: { port: string; host: string; data?: string }) =>
      run(program, async (io) => (await import('./commands/emulator.js')).emulatorCommand(opts, io)),
    );

  return program;
}

await buildProgram().parseAsync(process.argv);
