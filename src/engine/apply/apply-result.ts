/**
 * The value an apply returns (apply.ts): what the CLI renders (render/apply.ts) and maps to exit
 * codes. Apart from the use case, so that rendering it does not depend on running it.
 */
import type { StateDocument } from '../../state/index.js';
import type { ExecuteResult } from './execute.js';
import type { PreparedPlan } from '../plan/prepare.js';
import type { LiveRecord } from '../record/record-live.js';

export interface ApplyResult {
  /** The plan that was confirmed and executed. */
  prepared: PreparedPlan;
  result: ExecuteResult;
  /** Saved invitation files, by address. */
  invitations: Record<string, string>;
  /** The plan made after applying: empty when the portal converged (the same plan when there was nothing to do). */
  after: PreparedPlan;
  /** The recorded state afterwards (unchanged when there was nothing to do). */
  state: StateDocument | undefined;
  /** When operations were applied but not recorded: the recovery file that keeps them (undefined: none could be written). */
  recovery?: { file: string | undefined; addresses: string[] };
  /**
   * Live values recorded because the configuration already matches them (adopt-on-match): drift
   * resolved by adopting the portal's value, and objects not recorded before. Nothing was sent for them.
   */
  adopted: LiveRecord[];
  /** Stopped (Ctrl-C) while checking that the portal converged: its reads were abandoned, `after` is the executed plan. */
  checkStopped?: boolean;
  /** With nothing to send and no value to adopt, the names the plan resolved were written where the state held others. */
  namesRecorded?: boolean;
}
