/** The one JSON-shape guard the emulator uses (request bodies, data files, envelopes). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
