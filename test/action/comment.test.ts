/** The comment logic shared by the GitHub and GitLab scripts: the marker, the size cap, create-or-update. */
import { describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, commentBody, commentMarker, upsertComment } from '../../scripts/action/comment.mjs';
import { commandArgs, splitWords, succeeded } from '../../scripts/action/run-portalctl.mjs';

describe('comment body', () => {
  it('starts with a hidden marker that nothing in the id can close early', () => {
    expect(commentMarker('plan:portal/')).toBe('<!-- portalctl-comment: plan:portal/ -->');
    expect(commentMarker('a --> b')).toBe('<!-- portalctl-comment: a - b -->');
  });

  it('is left whole under the cap', () => {
    const body = commentBody('<!-- m -->', '### portalctl plan\n\nNo changes.\n') as string;
    expect(body).toBe('<!-- m -->\n### portalctl plan\n\nNo changes.\n');
  });

  it('is cut at whole lines under 60,000 characters, closes a cut code block and says where the rest is', () => {
    expect(COMMENT_LIMIT).toBe(60_000);
    const lines = ['### portalctl apply', '', '```', ...Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(30)}`), '```'];
    const body = commentBody('<!-- m -->', lines.join('\n'), { hint: 'the job log' }) as string;
    expect(body.length).toBeLessThanOrEqual(60_000);
    expect(body.length).toBeGreaterThan(55_000);
    expect(body.startsWith('<!-- m -->\n### portalctl apply')).toBe(true);
    const kept = body.split('\n');
    const last = kept.findLastIndex((line) => line.startsWith('line '));
    expect(kept[last]).toMatch(/^line \d+ x{30}$/);
    expect(kept[last + 1]).toBe('```');
    expect(body).toContain('✂️ **Truncated** to stay under 60000 characters. Full output: the job log.');
  });
});

describe('create or update', () => {
  it('updates the comment carrying the marker, and creates one only when there is none', async () => {
    const comments = [{ id: 1, body: 'someone else' }];
    const calls: string[] = [];
    const forge = {
      list: async () => comments,
      create: async (body: string) => (calls.push('create'), comments.push({ id: 2, body }), { id: 2 }),
      update: async (id: number, body: string) => (calls.push(`update ${id}`), (comments.find((c) => c.id === id)!.body = body)),
    };
    expect(await upsertComment(forge, '<!-- m -->', '<!-- m -->\none')).toEqual({ action: 'created', id: 2 });
    expect(await upsertComment(forge, '<!-- m -->', '<!-- m -->\ntwo')).toEqual({ action: 'updated', id: 2 });
    expect(calls).toEqual(['create', 'update 2']);
    expect(comments).toEqual([{ id: 1, body: 'someone else' }, { id: 2, body: '<!-- m -->\ntwo' }]);
  });
});

describe('the portalctl command line the scripts build', () => {
  it('splits extra arguments like a shell (quotes group words)', () => {
    expect(splitWords(`--target 'item[a b]' --lock-timeout 5m "x y"`)).toEqual(['--target', 'item[a b]', '--lock-timeout', '5m', 'x y']);
    expect(splitWords('')).toEqual([]);
  });

  it('passes the state URL and name, and auto-approves only apply', () => {
    expect(commandArgs({ command: 'apply', config: 'portal/', state: 'postgres://ci@db:5432/portalctl', stateName: 'production', args: '--allow-destructive' })).toEqual([
      'apply', 'portal/', '--auto-approve', '--state', 'postgres://ci@db:5432/portalctl', '--state-name', 'production', '--allow-destructive',
    ]);
    expect(commandArgs({ command: 'plan', config: 'a b' })).toEqual(['plan', 'a', 'b']);
    expect(() => commandArgs({ command: 'destroy' })).toThrow('command must be one of plan, apply, drift, not "destroy".');
  });

  it('treats 2 as success for plan and drift, 3 as failure for drift unless asked not to', () => {
    expect([0, 1, 2, 3].map((code) => succeeded('plan', code))).toEqual([true, false, true, false]);
    expect([0, 1, 2].map((code) => succeeded('apply', code))).toEqual([true, false, false]);
    expect([0, 1, 2, 3].map((code) => succeeded('drift', code))).toEqual([true, false, true, false]);
    expect(succeeded('drift', 3, { failOnDrift: false })).toBe(true);
  });
});
