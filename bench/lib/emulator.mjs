/**
 * The bundled emulator, embedded in the benchmark process, and its control API
 * (src/emulator/control.ts): request log, latency, reset.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function startBenchEmulator(root, options) {
  const { startEmulator } = await import(pathToFileURL(join(root, 'dist', 'emulator', 'index.js')).href);
  const emulator = await startEmulator({ port: 0, ...options });
  const control = async (method, path, body) => {
    const response = await fetch(`${emulator.controlUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`Emulator control ${method} ${path} failed (${response.status}): ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    url: emulator.url,
    /** The request log since the last clear. */
    requests: async () => (await control('GET', '/requests')).requests,
    clearRequests: () => control('DELETE', '/requests'),
    setLatency: (ms) => control('POST', '/latency', { ms }),
    /** State back to the loaded data; this also clears the log and the latency. */
    reset: () => control('POST', '/reset'),
    close: () => emulator.close(),
  };
}

/** Reads, writes and the write phase of a request log. */
export function summariseLog(entries, latencyMs) {
  const reads = entries.filter((entry) => entry.access === 'read');
  const writes = entries.filter((entry) => entry.access === 'write');
  const failedWrites = writes.filter((entry) => entry.response?.status !== 200 || entry.response?.code !== undefined);
  // Log times are arrivals; each answer leaves latencyMs after its arrival (plus handling).
  const writePhaseMs = writes.length ? Math.max(...writes.map((w) => w.time)) - Math.min(...writes.map((w) => w.time)) + latencyMs : 0;
  return { reads: reads.length, writes: writes.length, failedWrites: failedWrites.length, writePhaseMs, other: entries.length - reads.length - writes.length };
}
