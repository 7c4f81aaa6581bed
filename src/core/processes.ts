import { errorCode } from './errors.js';

/** Whether a process of this machine is running (a lock or a file it left may be taken over when not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return errorCode(error) === 'EPERM';
  }
}
