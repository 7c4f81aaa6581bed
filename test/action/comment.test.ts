/** The comment logic shared by the GitHub and GitLab scripts: the marker, the size cap, create-or-update. */
import { describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, commentBody, commentMarker, syncDriftIssue, upsertComment } from '../../scripts/action/comment.mjs';
import { commandArgs, splitWords, staleReason, succeeded } from '../../scripts/action/run-portalctl.mjs';

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
  it("updates the comment carrying the marker that the token's own account wrote, and creates one only when there is none", async () => {
    const comments = [
      { id: 1, body: 'someone else', author: 'alice' },
      { id: 3, body: '<!-- m -->\nplanted by someone else', author: 'mallory' },
    ];
    const calls: string[] = [];
    const forge = {
      identity: async () => 'bot',
      list: async () => comments,
      create: async (body: string) => (calls.push('create'), comments.push({ id: 2, body, author: 'bot' }), { id: 2 }),
      update: async (id: number, body: string) => (calls.push(`update ${id}`), (comments.find((c) => c.id === id)!.body = body)),
    };
    expect(await upsertComment(forge, '<!-- m -->', '<!-- m -->\none')).toEqual({ action: 'created', id: 2 });
    expect(await upsertComment(forge, '<!-- m -->', '<!-- m -->\ntwo')).toEqual({ action: 'updated', id: 2 });
    expect(calls).toEqual(['create', 'update 2']);
    expect(comments.map((c) => c.body)).toEqual(['someone else', '<!-- m -->\nplanted by someone else', '<!-- m -->\ntwo']);
  });

  it('edits nothing when it cannot tell who the token is', async () => {
    const forge = {
      identity: async () => {
        throw new Error('could not tell which account the token belongs to');
      },
      list: async () => [{ id: 1, body: '<!-- m -->', author: 'bot' }],
      create: async () => ({ id: 2 }),
      update: async () => undefined,
    };
    await expect(upsertComment(forge, '<!-- m -->', 'x')).rejects.toThrow('could not tell which account the token belongs to');
  });
});

describe('the drift issue', () => {
  function issueForge() {
    const issues: { id: number; body: string; author: string; state: string; notes: string[] }[] = [{ id: 1, body: '<!-- d -->\nplanted', author: 'mallory', state: 'open', notes: [] }];
    return {
      issues,
      identity: async () => 'bot',
      forge: {
        identity: async () => 'bot',
        issues: {
          listOpen: async () => issues.filter((issue) => issue.state === 'open'),
          create: async ({ body }: { title: string; body: string }) => (issues.push({ id: issues.length + 1, body, author: 'bot', state: 'open', notes: [] }), { id: issues.length }),
          update: async (id: number, { body }: { title: string; body: string }) => void (issues.find((issue) => issue.id === id)!.body = body),
          close: async (id: number, note: string) => {
            const issue = issues.find((entry) => entry.id === id)!;
            issue.notes.push(note);
            issue.state = 'closed';
          },
        },
      },
    };
  }

  it('is opened once, updated in place while drift lasts, closed when it is gone, and never one written by someone else', async () => {
    const { forge, issues } = issueForge();
    const sync = (drift: boolean, body: string) => syncDriftIssue(forge, '<!-- d -->', { drift, title: 'Portal drift', body, closingNote: 'gone' });
    expect(await sync(false, '')).toEqual({ action: 'none' });
    expect(await sync(true, '<!-- d -->\nnight 1')).toMatchObject({ action: 'opened', id: 2 });
    expect(await sync(true, '<!-- d -->\nnight 2')).toMatchObject({ action: 'updated', id: 2 });
    expect(await sync(false, '')).toMatchObject({ action: 'closed', id: 2 });
    expect(await sync(false, '')).toEqual({ action: 'none' });
    expect(issues).toEqual([
      { id: 1, body: '<!-- d -->\nplanted', author: 'mallory', state: 'open', notes: [] },
      { id: 2, body: '<!-- d -->\nnight 2', author: 'bot', state: 'closed', notes: ['gone'] },
    ]);
  });
});

describe('the portalctl command line the scripts build', () => {
  it('splits extra arguments like a shell (quotes group words)', () => {
    expect(splitWords(`--target 'item[a b]' --lock-timeout 5m "x y"`)).toEqual(['--target', 'item[a b]', '--lock-timeout', '5m', 'x y']);
    expect(splitWords('')).toEqual([]);
  });

  it('applies a reviewed plan with --plan and the checkout\'s config', () => {
    expect(commandArgs({ command: 'apply', config: 'portal/', stateName: 'production', reviewedPlan: '/tmp/reviewed/plan.json' })).toEqual([
      'apply', 'portal/', '--auto-approve', '--plan', '/tmp/reviewed/plan.json', '--state-name', 'production',
    ]);
  });

  it('tells the stale-plan refusal of apply --plan by its diagnostic code, not by its text', () => {
    const stale = { code: 'stale-plan', severity: 'error', message: 'Die gespeicherte Planung ist veraltet.', value: 'the recorded state changed (a serial 1 -> a serial 2)' };
    expect(staleReason({ code: 1, diagnostics: [stale] })).toBe('the recorded state changed (a serial 1 -> a serial 2)');
    expect(staleReason({ code: 1, diagnostics: [{ code: 'state-locked', severity: 'error', message: 'The saved plan is stale: no.' }] })).toBeUndefined();
    expect(staleReason({ code: 1, stderr: 'Error: The saved plan is stale: x. Nothing was applied\n' })).toBeUndefined();
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
