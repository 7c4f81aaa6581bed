/**
 * The config's `safety:` block: per kind name, the change-threshold limits it overrides. The
 * engine's plan stage (plan/safety.ts) applies them; the config stage only reads them.
 */
import { isObject, type JsonValue } from '../../core/json.js';

/** The limits of one kind; every field optional in the config (`safety: { <kind>: {...} }`). */
export interface SafetyLimits {
  /** Largest share (0 to 1) of the kind's managed objects one apply may update. */
  maxUpdates: number;
  /** Largest share (0 to 1) of the kind's managed objects one apply may remove. */
  maxRemovals: number;
  /** Below this many managed objects of the kind, the shares are not checked. */
  minManaged: number;
}

export type SafetySettings = Readonly<Record<string, Partial<SafetyLimits>>>;

const LIMIT_FIELDS = ['maxUpdates', 'maxRemovals', 'minManaged'] as const;

/** The settings a `safety:` block declares; the schema has checked names and ranges already. */
export function safetySettingsOf(block: JsonValue): SafetySettings {
  const settings: Record<string, Partial<SafetyLimits>> = {};
  if (!isObject(block)) return settings;
  for (const [kind, limits] of Object.entries(block)) {
    if (!isObject(limits)) continue;
    const declared: Partial<SafetyLimits> = {};
    for (const field of LIMIT_FIELDS) {
      const value = limits[field];
      if (typeof value === 'number') declared[field] = value;
    }
    settings[kind] = declared;
  }
  return settings;
}
