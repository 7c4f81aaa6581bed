/**
 * portalctl's version, from its package.json. The CLI bundle (scripts/bundle.mjs) has the
 * value written in instead, so a start reads no extra file.
 */
import { createRequire } from 'node:module';

export const version = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
