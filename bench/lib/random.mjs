/**
 * A small seeded pseudo-random source (mulberry32), so every generated organization is the
 * same from run to run and results can be compared across machines and commits.
 */

/** @param {number} seed */
export function seededRandom(seed) {
  let state = seed >>> 0;
  /** A float in [0, 1). */
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [0, n). */
    int: (n) => Math.floor(next() * n),
    /** One element of a non-empty array. */
    pick: (values) => values[Math.floor(next() * values.length)],
    /** `length` lowercase hex digits (portal ids are 32). */
    hex: (length = 32) => {
      let text = '';
      while (text.length < length) text += Math.floor(next() * 0x100000000).toString(16).padStart(8, '0');
      return text.slice(0, length);
    },
  };
}
