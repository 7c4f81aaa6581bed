/**
 * The effective config (`portalctl config [--env NAME]`): the base files and the environment's
 * layers as one document, references resolved (environment and file values shown as their
 * references), `values:` and `environments:` left out, and beside every value the file and line
 * it was written at. The documents are merged by the overlay rules, so an entry split over two
 * files shows once.
 */
import { Document, isMap, isScalar, isSeq, type Node } from 'yaml';
import { isObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import type { LoadedConfig } from './load.js';
import { containerKeyAt, Origin, OverlayMerge } from './overlay.js';
import { configSchema } from './config-schema.js';
import { shownUrl } from '../../api/url.js';

/** Blocks the effective config does not repeat: what they declare is already applied. */
const DECLARING = ['values', 'environments'];

export interface EffectiveConfig {
  data: JsonObject;
  /** Where the value at `path` was written. */
  locate(path: ConfigPath): { file: string; line: number; column: number };
}

export function effectiveConfig(loaded: LoadedConfig): EffectiveConfig {
  const [first, ...rest] = loaded.documents.filter((document) => isObject(document.data));
  if (!first) return { data: {}, locate: () => ({ file: '', line: 1, column: 1 }) };
  const data = structuredClone(first.data as JsonObject);
  const origin = new Origin(first, []);
  const merge = new OverlayMerge(loaded.kinds.containers);
  for (const document of rest) merge.apply([{ data, origin }], { data: structuredClone(document.data as JsonObject), origin: new Origin(document, []) });
  for (const block of DECLARING) delete data[block];
  // Top-level sections in the schema's order (version, portal, organization, groups, ...), whatever file came first.
  const properties = configSchema(loaded.kinds)['properties'];
  const order = isObject(properties) ? Object.keys(properties) : [];
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const sorted = Object.fromEntries(Object.entries(data).sort(([a], [b]) => rank(a) - rank(b)));
  const shown = loaded.redact(sorted);
  // A password written in the portal's URL is refused by validation, and never shown.
  const portal = shown['portal'];
  if (isObject(portal) && typeof portal['url'] === 'string') portal['url'] = shownUrl(portal['url']);
  return { data: shown, locate: (path) => origin.locate(path) };
}

/**
 * The YAML view builds a `yaml` document of the whole effective config and locates every value
 * in its file: about twenty times the config's size in memory, so past this many bytes of config
 * files it is refused (the ten-times organization, 140 MB of YAML, ran out of memory). The JSON
 * view, which has no positions, is not limited.
 */
export const effectiveYamlMaxBytes = 16 << 20;

/**
 * The effective config as YAML, each scalar (and empty list or mapping) followed by a comment naming where it was written;
 * `portalFromFlag`: portal.url came from `--portal`, in place of the one written.
 */
export function renderEffectiveYaml(loaded: LoadedConfig, { portalFromFlag = false }: { portalFromFlag?: boolean } = {}): string {
  const effective = effectiveConfig(loaded);
  const doc = new Document(effective.data);
  const annotate = (node: unknown, path: (string | number)[]): void => {
    // An empty list or mapping is a value too (`groups: []`, or what an overlay's `$patch: delete` emptied): where it was written.
    if ((isMap(node) || isSeq(node)) && node.items.length === 0) {
      const at = effective.locate(path);
      node.flow = true;
      (node as Node).comment = ` ${at.file}:${at.line}`;
      return;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        // An entry's key given as a name stays on one line, as it is written: `id: { name: ... }`.
        if (isMap(pair.value) && typeof path[path.length - 1] === 'number' && containerKeyAt(loaded.kinds.containers, path.slice(0, -1)) === key) {
          pair.value.flow = true;
          const at = effective.locate([...path, key]);
          (pair.value as Node).comment = ` ${at.file}:${at.line}`;
          continue;
        }
        annotate(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => annotate(item, [...path, index]));
    } else if (isScalar(node)) {
      const at = effective.locate(path);
      const flag = portalFromFlag && path.length === 2 && path[0] === 'portal' && path[1] === 'url';
      (node as Node).comment = flag ? ` --portal, in place of ${at.file}:${at.line}` : ` ${at.file}:${at.line}`;
    }
  };
  annotate(doc.contents, []);
  const environment = loaded.environment ? `environment ${loaded.environment.name}` : 'no environment';
  doc.commentBefore = [` The effective config (${environment}) of ${loaded.sources.join(', ')}.`, ' Each value is followed by the file and line it was written at.'].join('\n');
  return doc.toString({ lineWidth: 0 });
}

/** The effective config as JSON (no positions). */
export function renderEffectiveJson(loaded: LoadedConfig): string {
  return `${JSON.stringify(effectiveConfig(loaded).data as JsonValue, null, 2)}\n`;
}
