/**
 * A user's tasks (E7) as a portal may list them: by the documented `taskState` alone, without the
 * `active` flag. Through the real CLI: an active task is enabled already, so it is not planned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

describe('task states', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  it("a task the portal reports only by its documented taskState 'active' (E7) is enabled: not planned for enabling on every run", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(`${CONFIG_HEADER}users:\n  - username: jsmith\n    tasks:\n      - { id: d4e5f6, enabled: true }\n      - { id: a1b2c3, enabled: true }\n`, 'task-state');
    // The list as a portal may answer it: taskState without the active flag (documented values: active, paused, completed).
    const tasks = [
      { id: 'd4e5f6', type: 'ExecuteNotebook', title: 'Update road centerlines', userId: 'jsmith', taskState: 'active' },
      { id: 'a1b2c3', type: 'ExecuteNotebook', title: 'Survey culverts', userId: 'jsmith', taskState: 'paused' },
    ];
    await portal.fault({ path: '/community/users/jsmith/tasks', method: 'GET', status: 200, body: JSON.stringify({ total: 2, start: 1, num: 2, nextStart: -1, tasks }), count: 0 });
    const plan = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete.');
    expect(plan.stdout).toContain('~ user[jsmith].task[a1b2c3] — Survey culverts (Jane Smith)  (E7 Enable task)');
    // Before the fix, taskState 'active' read as disabled: d4e5f6 was planned for enabling on every run.
    expect(plan.stdout).not.toContain('user[jsmith].task[d4e5f6]');
  });
});
