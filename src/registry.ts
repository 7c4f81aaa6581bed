/**
 * The composition root: the registered kinds and the config's containers, made into the one
 * kind set the engine is given. Only the CLI (and the build step, and test helpers) import
 * it; the engine receives it as an argument.
 */
import { createKindSet, type KindSet } from './engine/kind-set.js';
import { containers, kinds } from './kinds/index.js';

export const registry: KindSet = createKindSet(kinds, containers);
