/**
 * Where positions-worker's script is: beside this module's compiled file. The CLI bundle
 * (scripts/bundle.mjs) puts its own file name (positions-worker.cjs beside the bundle) in place
 * of this module, as import.meta is empty in CommonJS.
 */
import { fileURLToPath } from 'node:url';

export const positionsWorkerFile: string = fileURLToPath(new URL('./positions-worker.js', import.meta.url));
