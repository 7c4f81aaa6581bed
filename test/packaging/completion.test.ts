/**
 * `portalctl completion bash|zsh` is generated from the commander program: it names every
 * command and every flag the CLI's own --help shows, bash accepts it, and completing a prefix
 * in a real bash gives the expected words.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';

const portalctl = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

/** Commands and flags from the CLI's help text, an independent view of the program. */
function fromHelp(): { commands: string[]; stateCommands: string[]; flags: Map<string, string[]> } {
  const top = portalctl('--help').stdout;
  const commands = [...(top.split('Commands:')[1] ?? '').matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
  const flagsOf = (help: string) => [...new Set([...help.matchAll(/(?:^|[\s,])(--?[a-zA-Z][\w-]*)/gm)].map((match) => match[1]!))];
  const flags = new Map<string, string[]>([['', flagsOf(top.split('Commands:')[0] ?? '')]]);
  for (const command of commands) flags.set(command, flagsOf(portalctl(command, '--help').stdout.split('Credentials come from')[0] ?? ''));
  // Nested commands (state show|list|...) have flags of their own.
  const stateCommands = [...(portalctl('state', '--help').stdout.split('Commands:')[1] ?? '').matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
  for (const sub of stateCommands) flags.set(`state ${sub}`, flagsOf(portalctl('state', sub, '--help').stdout.split('Credentials come from')[0] ?? ''));
  return { commands, stateCommands, flags };
}

/** Completes `line` (the cursor at its end) with the generated bash script in a bash subprocess. */
function completeInBash(line: string): string[] {
  const script = portalctl('completion', 'bash').stdout;
  const words = line.split(' ');
  const program = `${script}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})
COMP_CWORD=${words.length - 1}
COMP_LINE='${line}'
COMP_POINT=${line.length}
_portalctl_completion portalctl '${words.at(-1)}' '${words.at(-2) ?? ''}'
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter(Boolean).sort();
}

describe('portalctl completion', () => {
  const help = fromHelp();

  it('the help lists the commands the completion must know, completion among them', () => {
    expect(help.commands).toEqual(expect.arrayContaining(['plan', 'apply', 'drift', 'import', 'state', 'validate', 'schema', 'emulator', 'completion']));
    expect(help.flags.get('plan')).toEqual(expect.arrayContaining(['--out', '--format', '--detailed-exitcode', '--portal', '--state', '--state-name']));
    expect(help.stateCommands).toEqual(expect.arrayContaining(['show', 'list', 'history', 'unlock', 'rm', 'mv', 'push', 'pull']));
    expect(help.flags.get('state push')).toEqual(expect.arrayContaining(['--source-name', '--dry-run']));
  });

  it.each(['bash', 'zsh'])('%s: names every command and every flag of every command', (shell) => {
    const result = portalctl('completion', shell);
    expect(result.status).toBe(0);
    for (const command of [...help.commands, ...help.stateCommands]) expect(result.stdout, command).toMatch(new RegExp(`[\\s'"(]${command}[\\s:)"]`));
    for (const [command, flags] of help.flags) {
      for (const flag of flags) expect(result.stdout, `${command} ${flag}`).toContain(flag);
    }
  });

  it('bash accepts the script (bash -n) and registers it', () => {
    const script = portalctl('completion', 'bash').stdout;
    const syntax = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    expect(syntax.stderr).toBe('');
    expect(syntax.status).toBe(0);
    const registered = spawnSync('bash', ['--norc', '--noprofile', '-c', `${script}\ncomplete -p portalctl`], { encoding: 'utf8' });
    expect(registered.stdout.trim()).toBe('complete -o default -F _portalctl_completion portalctl');
  });

  it('bash completes commands, flags (the command\'s and the global ones) and choices', () => {
    expect(completeInBash('portalctl pl')).toEqual(['plan']);
    expect(completeInBash('portalctl ')).toEqual([...help.commands].sort());
    expect(completeInBash('portalctl --po')).toEqual(['--portal']);
    expect(completeInBash('portalctl plan --det')).toEqual(['--detailed-exitcode']);
    expect(completeInBash('portalctl apply --a')).toEqual(['--all-envs', '--allow-destructive', '--auto-approve']);
    expect(completeInBash('portalctl --verbose apply --lock')).toEqual(['--lock-timeout']);
    expect(completeInBash('portalctl plan --format ')).toEqual(['json', 'markdown', 'text']);
    expect(completeInBash('portalctl apply --format ')).toEqual(['json', 'text']);
    expect(completeInBash('portalctl state ')).toEqual(['history', 'list', 'mv', 'pull', 'push', 'rm', 'show', 'unlock']);
    expect(completeInBash('portalctl state p')).toEqual(['pull', 'push']);
    expect(completeInBash('portalctl state show --s')).toEqual(['--serial', '--state', '--state-name']);
    expect(completeInBash('portalctl --state-name prod state push --so')).toEqual(['--source-name']);
    expect(completeInBash('portalctl state rm --d')).toEqual(['--dry-run']);
    expect(completeInBash('portalctl --state-n')).toEqual(['--state-name']);
    expect(completeInBash('portalctl completion z')).toEqual(['zsh']);
    // A value that is a path: nothing of ours, bash's own file completion (-o default) takes over.
    expect(completeInBash('portalctl plan --out ')).toEqual([]);
  });

  it('zsh: a #compdef function with a described entry per command and the choices of each option', () => {
    const script = portalctl('completion', 'zsh').stdout;
    expect(script.startsWith('#compdef portalctl\n')).toBe(true);
    expect(script).toContain("'plan:show the operations that would bring the portal to the configuration'");
    expect(script).toContain("'--format[output format]:format:(text json markdown)'");
    expect(script).toContain("'*--target[keep only the operations ADDRESS selects, by whole steps (role selects every role)]:target:_files'");
    expect(script).toContain("'history:list the kept serials with time, command and counts'");
    expect(script).toContain("'--source-name[the state name at a postgres\\:// SOURCE]:source-name:_files'");
    expect(script).toContain("'1:completion:(bash zsh)'");
    expect(script).toContain('compdef _portalctl portalctl');
  });

  it('refuses a shell it does not know, naming the choices', () => {
    const result = portalctl('completion', 'fish');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Allowed choices are bash, zsh");
  });
});
