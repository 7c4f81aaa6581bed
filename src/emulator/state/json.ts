/** The JSON-shape guards the emulator uses (request bodies, data files, envelopes, its own state). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Array.isArray, narrowing to unknown elements (checked before use) rather than to any. */
export const isList = (value: unknown): value is readonly unknown[] => Array.isArray(value);
