/** Turning ajv's errors into diagnostics a person can act on. */
import fastJsonPatch from 'fast-json-patch';
import type { Diagnostic } from '../../core/diagnostics.js';
import type { JsonSchema } from '../../kinds/toolkit/contract.js';
import type { JsonValue } from '../../core/json.js';
import { didYouMean, type Candidate } from '../../core/suggest.js';
import { listed, withArticle } from '../../core/words.js';
import type { SchemaError } from './schema-validator.js';
import { isJsonFile, type ParsedSource, type WrittenScalar } from './source.js';
import type { KindSet } from '../kind-set.js';
import { configSchema } from './config-schema.js';
import { addressForPath } from './walk.js';

const { unescapePathComponent } = fastJsonPatch;

/** Path segments of a JSON pointer (`/groups/0/id`); digit-only segments become list indexes. */
export function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => unescapePathComponent(segment))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

function valueAt(data: JsonValue | undefined, path: readonly (string | number)[]): JsonValue | undefined {
  let value = data;
  for (const step of path) {
    if (Array.isArray(value) && typeof step === 'number') value = value[step];
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) value = value[String(step)];
    else return undefined;
  }
  return value;
}

/** Scalars as they are; collections summarised (a diagnostic shows what is wrong, not the whole subtree). */
function shown(value: JsonValue | undefined): unknown {
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object' && value !== null) return 'a mapping';
  return value;
}

/** A number no portal takes: `.inf`, `.nan`, or one past what a double holds (1e400 reads as infinity). */
const isNonFinite = (value: JsonValue | undefined): boolean => typeof value === 'number' && !Number.isFinite(value);

/**
 * Whether the error refuses a number that is not finite. Every such number of the data was said
 * where it is written (source.ts), whichever way it reached this field (an alias, a whole
 * ${var:}, an overlay), and references.ts makes none of an ${env:}: the schema's refusal of one
 * (its type, or a bound NaN is below) would say it again, and is left out.
 */
export function refusesNonFinite(error: SchemaError, data: JsonValue | undefined): boolean {
  return isNonFinite(valueAt(data, pointerToPath(error.instancePath)));
}


function schemaAt(schema: JsonSchema, schemaPath: string): JsonValue | undefined {
  let node: JsonValue | undefined = schema;
  for (const step of pointerToPath(schemaPath.replace(/^#/, ''))) {
    if (Array.isArray(node) && typeof step === 'number') node = node[step];
    else if (typeof node === 'object' && node !== null && !Array.isArray(node)) node = node[String(step)];
    else return undefined;
  }
  return node;
}

/** The properties the schema allows where an unknown one was found, with their descriptions (for "did you mean"). */
function allowedProperties(schema: JsonSchema, schemaPath: string): Candidate[] {
  const parent = schemaAt(schema, schemaPath.replace(/\/additionalProperties$/, ''));
  const properties = typeof parent === 'object' && parent !== null && !Array.isArray(parent) ? parent['properties'] : undefined;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  return Object.entries(properties).map(([name, property]) => {
    const description = typeof property === 'object' && property !== null && !Array.isArray(property) ? property['description'] : undefined;
    return typeof description === 'string' ? { name, description } : { name };
  });
}

const article = (type: string): string => withArticle(type);

/** YAML 1.1's merge key: a plain key in a YAML 1.2 document. */
const MERGE_KEY = '<<';

/** Keywords of the limits the schema carries for editors (lengths, counts, bounds); most are rule checks too. */
const limitKeywords = new Set(['maxLength', 'maxItems', 'minItems', 'minimum', 'maximum']);

/** The schema node whose keyword failed (the schema path without its last step). */
function failedNode(schema: JsonSchema, schemaPath: string): JsonValue | undefined {
  return schemaAt(schema, schemaPath.replace(/\/[^/]*$/, ''));
}

function patternMessage(schema: JsonSchema, schemaPath: string): string | undefined {
  const node = failedNode(schema, schemaPath);
  const message = typeof node === 'object' && node !== null && !Array.isArray(node) ? node['patternErrorMessage'] : undefined;
  return typeof message === 'string' ? message : undefined;
}

/**
 * A value past a limit the schema carries for editors (a length, a count, a bound, a reserved
 * character): it keeps its type, so extraction goes on and the kind's rule check can report it
 * with the spec's wording (validate.ts then drops the schema's report at the same place).
 */
export function isLimitError(error: SchemaError, schema: JsonSchema): boolean {
  return limitKeywords.has(error.keyword) || (error.keyword === 'pattern' && patternMessage(schema, error.schemaPath) !== undefined);
}

/** The schema codes of limits, which a rule diagnostic at the same place replaces. */
export const limitCodes: ReadonlySet<string> = new Set(['schema/max-length', 'schema/max-items', 'schema/min-items', 'schema/minimum', 'schema/maximum', 'schema/pattern']);

/** What a limit keyword says, for a person. */
function limitMessage(error: SchemaError, path: readonly (string | number)[], value: JsonValue | undefined, schema: JsonSchema): { message: string; expected: string } | undefined {
  const limit = Number(error.params['limit']);
  const what = described(path);
  switch (error.keyword) {
    case 'maxLength':
      return { message: `${what} has ${typeof value === 'string' ? value.length : 'more than ' + limit} characters; at most ${limit} are allowed.`, expected: `at most ${limit} characters` };
    case 'maxItems':
      return { message: `${what} holds ${Array.isArray(value) ? value.length : 'more than ' + limit} entries; at most ${limit} are allowed.`, expected: `at most ${limit} entries` };
    case 'minLength':
      return limit === 1 ? { message: `${what} must not be empty.`, expected: 'a non-empty text' } : { message: `${what} needs at least ${limit} characters.`, expected: `at least ${limit} characters` };
    case 'minItems':
      return { message: `${what} needs at least ${limit} ${limit === 1 ? 'entry' : 'entries'}.`, expected: `at least ${limit} ${limit === 1 ? 'entry' : 'entries'}` };
    case 'minimum':
      return { message: `${what} must be at least ${limit}.`, expected: `at least ${limit}` };
    case 'maximum':
      return { message: `${what} must be at most ${limit}.`, expected: `at most ${limit}` };
    case 'pattern': {
      const message = patternMessage(schema, error.schemaPath);
      return message ? { message: `${what}: ${message}`, expected: `a value matching ${String(error.params['pattern'])}` } : undefined;
    }
    default:
      return undefined;
  }
}

function described(path: readonly (string | number)[]): string {
  return path.length === 0 ? 'the document' : path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('').replace(/^\./, '');
}

/** A document that is no mapping: an empty file (or one of comments only) said as that, not as "the document must be an object". */
function documentNotAMapping(value: JsonValue | undefined, source: ParsedSource): string {
  const json = isJsonFile(source.file);
  if (value === null && !json) return 'The file holds no config: it is empty, or holds only comments.';
  const what = Array.isArray(value) ? (json ? 'an array' : 'a list') : value === null ? 'null' : typeof value === 'string' ? 'a text' : article(typeOf(value));
  return `The file's document is ${what}; a config file is ${json ? 'an object' : 'a mapping'} of its sections (version, portal, roles, ...).`;
}

/** YAML 1.1's words for booleans, which YAML 1.2 (how files are read) takes as text. */
const yaml11Booleans = new Set(['yes', 'no', 'on', 'off', 'y', 'n']);

/**
 * How a value was written, as far as its source can tell: a hint says only what is true of it
 * (a tagged value is not quoted; a number from `${var:}` is not YAML's reading; JSON is not YAML).
 */
interface Writing {
  /** Written in a JSON file. */
  json: boolean;
  /** Its scalar as written; undefined where the source cannot tell (a large file). */
  scalar?: WrittenScalar;
  /** Its file holds no `${`, so no reference gave it. */
  noReferences: boolean;
}

/** The writing of the value at `path`, whose diagnostic is at `location`. */
function writingAt(source: ParsedSource, path: readonly (string | number)[], location: { file: string }): Writing {
  const scalar = source.scalarAt?.([...path]);
  return { json: isJsonFile(location.file), ...(scalar ? { scalar } : {}), noReferences: source.mayHoldReferences === false };
}

/** A whole-field `${var:name}`, which stands for the value as declared, with its type (references.ts). */
const wholeVarReference = /^\$\{var:[^}]*\}$/;

/**
 * Why a value that reads as a number or a boolean is text, by how it is written: quoted, tagged,
 * a block scalar, or given by a reference that makes text.
 */
function writtenAsText({ json, scalar }: Writing): string {
  if (scalar?.tag !== undefined) return ` (it is tagged ${scalar.tag}, which portalctl reads as text here: write it without the tag)`;
  // A whole ${env:} or ${var:} takes the field's type; only a ${file:}, or a reference inside a longer text, leaves text that reads as a number.
  if (scalar?.text?.includes('${')) return " (a ${file:} reference, or a reference inside a longer text, gives text; a whole ${env:} or ${var:} takes the field's type)";
  if (scalar?.style === 'block') return ' (it is a block scalar, which is text: write it after the key, without | or >)';
  if (json || scalar?.style === 'quoted') return ' (it is quoted: write it without quotes)';
  // A plain scalar that is text (`0b101`) says nothing wrong of how it is quoted; unknown: what is true of any text.
  return scalar ? '' : ' (it is text here: write it plain, without quotes)';
}

/**
 * How to write a text as the boolean or number the schema asks for, when it plainly is one. The
 * value itself is not repeated: it may come from a reference, whose value is never shown.
 */
function typeHint(value: JsonValue | undefined, wanted: readonly string[], writing: () => Writing): string {
  if (typeof value !== 'string') return '';
  const trimmed = value.trim();
  if (wanted.includes('boolean')) {
    if (trimmed === 'true' || trimmed === 'false') return writtenAsText(writing());
    if (yaml11Booleans.has(trimmed.toLowerCase())) return writing().json ? ' (write true or false, without quotes)' : ' (yes, no, on and off are text in YAML 1.2: write true or false)';
  }
  const number = (wanted.includes('integer') && /^-?\d+$/.test(trimmed)) || (wanted.includes('number') && trimmed !== '' && Number.isFinite(Number(trimmed)));
  return number ? writtenAsText(writing()) : '';
}

/**
 * How to write as text a number or a boolean where a text goes (`version: 10.10`, an id of digits
 * only): in quotes, as written. The parsed value is not repeated, since it is not what was
 * written (10.10 reads as 10.1, 0012 as 12, 1e3 as 1000).
 */
function textHint(value: JsonValue | undefined, types: readonly string[], writing: () => Writing): string {
  if (!types.includes('string') || (typeof value !== 'number' && typeof value !== 'boolean')) return '';
  const type = typeof value;
  const { json, scalar, noReferences } = writing();
  if (scalar?.text !== undefined && wholeVarReference.test(scalar.text)) return ` (${scalar.text} stands for a ${type}, as its value is declared under values: write that value in quotes)`;
  if (scalar?.tag !== undefined) return ` (it is tagged ${scalar.tag}, which makes it a ${type}: write it in quotes, without the tag)`;
  const reads = ` (write it in quotes, as it is written: unquoted, ${json ? 'JSON' : 'YAML'} reads it as a ${type}`;
  // Where how it is written is not known, it may be a ${var:} too.
  return json || scalar || noReferences ? `${reads})` : `${reads}; a whole \${var:} stands for its value as declared under values:, to be quoted there)`;
}

/** A value's JSON Schema type, as a branch's `type` names it. */
function typeOf(value: JsonValue | undefined): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
}

/** An anyOf whose branches each take one type (an id, or a mapping naming the object): each branch's type and required properties. */
function typedBranches(node: JsonValue | undefined): { type: string; required: string[] }[] | undefined {
  if (!Array.isArray(node)) return undefined;
  const branches = node.map((branch) => {
    if (typeof branch !== 'object' || branch === null || Array.isArray(branch) || typeof branch['type'] !== 'string') return undefined;
    const required = Array.isArray(branch['required']) ? branch['required'].filter((name): name is string => typeof name === 'string') : [];
    return { type: branch['type'], required };
  });
  return branches.every((branch) => branch !== undefined) ? branches : undefined;
}

/** How the alternatives read: "a string or an object with title, type and owner". */
function alternativesText(branches: readonly { type: string; required: string[] }[]): string {
  return branches.map(({ type, required }) => `${article(type)}${type === 'object' && required.length > 0 ? ` with ${listed(required)}` : ''}`).join(' or ');
}

export function schemaDiagnostics(errors: readonly SchemaError[], source: ParsedSource, kinds: KindSet): Diagnostic[] {
  const schema = configSchema(kinds);
  const diagnostics: Diagnostic[] = [];
  const data = source.data;
  // An anyOf of typed branches (an id, or a mapping by name): the branch the value's type picks
  // explains what is wrong, its errors reported as if it were the only schema there; a value of
  // no branch's type is one wrong-type error naming them all.
  const chosenBranches: { schemaPath: string; instancePath: string }[] = [];
  const typedAlternatives = new Map<SchemaError, string>();
  for (const error of errors) {
    if (error.keyword !== 'anyOf') continue;
    const branches = typedBranches(schemaAt(schema, error.schemaPath));
    if (!branches) continue;
    const type = typeOf(valueAt(data, pointerToPath(error.instancePath)));
    const chosen = branches.findIndex((branch) => branch.type === type || (branch.type === 'number' && type === 'integer'));
    if (chosen >= 0) chosenBranches.push({ schemaPath: `${error.schemaPath}/${chosen}/`, instancePath: error.instancePath });
    typedAlternatives.set(error, chosen >= 0 ? '' : alternativesText(branches));
  }
  const inChosenBranch = (error: SchemaError) =>
    chosenBranches.some(({ schemaPath, instancePath }) => error.schemaPath.startsWith(schemaPath) && (error.instancePath === instancePath || error.instancePath.startsWith(`${instancePath}/`)));
  // Missing variant keys arrive as one `required` per alternative plus an `anyOf`: report once.
  const variantKeys = new Map<string, string[]>();
  for (const error of errors) {
    if (error.keyword === 'required' && /\/anyOf\/\d+\/required$/.test(error.schemaPath)) {
      const list = variantKeys.get(error.instancePath) ?? [];
      list.push(String(error.params['missingProperty']));
      variantKeys.set(error.instancePath, list);
    }
  }
  for (const error of errors) {
    const path = pointerToPath(error.instancePath);
    const address = addressForPath(kinds, data, path);
    const base = { severity: 'error' as const, ...(address ? { address } : {}) };
    const value = valueAt(data, path);
    if ((error.schemaPath.includes('/anyOf/') && !inChosenBranch(error)) || error.keyword === 'if' || error.keyword === 'propertyNames') continue;
    if (refusesNonFinite(error, data)) continue;
    if (error.schemaPath.includes('/propertyNames/')) {
      const name = String((error as SchemaError & { propertyName?: string }).propertyName ?? '');
      const names = (error.params['allowedValues'] as string[] | undefined) ?? [];
      // Names chosen by the user (environments, values) are held to a pattern, not a list: "one of" nothing said nothing.
      const pattern = error.keyword === 'pattern' ? String(error.params['pattern']) : undefined;
      diagnostics.push({
        ...base,
        code: 'schema/unknown-property',
        // Variant entries restrict their names by propertyNames inside an if/then; a map keyed by names (safety: kind names) directly.
        message: error.schemaPath.includes('/then/')
          ? `"${name}" cannot be combined with the other properties of this entry in ${described(path)}.`
          : pattern !== undefined
            ? `"${name}" is not a name ${described(path)} takes.`
            : `Unknown name "${name}" in ${described(path)}.${didYouMean(name, names)}`,
        location: source.locate([...path, name], { key: true }),
        value: name,
        expected: pattern !== undefined ? `a name matching ${pattern}` : `one of ${names.join(', ')}`,
      });
      continue;
    }
    switch (error.keyword) {
      case 'anyOf': {
        const alternatives = typedAlternatives.get(error);
        if (alternatives !== undefined) {
          if (alternatives === '') break; // the chosen branch's own errors say it
          const location = source.locate(path);
          const hint = textHint(value, typedBranches(schemaAt(schema, error.schemaPath))?.map((branch) => branch.type) ?? [], () => writingAt(source, path, location));
          diagnostics.push({ ...base, code: 'schema/wrong-type', message: `${described(path)} must be ${alternatives}.`, location, value: shown(value), expected: `${alternatives}${hint}` });
          break;
        }
        const keys = variantKeys.get(error.instancePath) ?? [];
        diagnostics.push({
          ...base,
          code: 'schema/missing-property',
          message: `This entry of ${described(path.slice(0, -1))} needs one of: ${keys.join(', ')}.`,
          location: source.locate(path),
          value: shown(value),
          expected: `one of ${keys.join(', ')}`,
        });
        break;
      }
      case 'additionalProperties': {
        const name = String(error.params['additionalProperty']);
        const allowed = allowedProperties(schema, error.schemaPath);
        const location = source.locate([...path, name], { key: true });
        diagnostics.push({
          ...base,
          code: 'schema/unknown-property',
          message:
            // In JSON `<<` is a name like any other: merge keys are YAML's.
            name === MERGE_KEY && !isJsonFile(location.file)
              ? `Unknown property "${name}" in ${described(path)}: a merge key is YAML 1.1, and a file is read as YAML 1.2 unless it starts with "%YAML 1.1" and "---".`
              : `Unknown property "${name}" in ${described(path)}.${didYouMean(name, allowed)}`,
          location,
          value: name,
          expected: allowed.length > 0 ? `one of ${allowed.map((property) => property.name).join(', ')}` : 'no other properties',
        });
        break;
      }
      case 'required': {
        const name = String(error.params['missingProperty']);
        diagnostics.push({
          ...base,
          code: 'schema/missing-property',
          message:
            path.length === 0 && name === 'version'
              ? 'The top-level "version: 1" is required.'
              : `Missing required property "${name}" in ${described(path)}.`,
          location: source.locate(path),
          expected: name === 'version' && path.length === 0 ? 'version: 1' : `${/^[aeiou]/i.test(name) ? 'an' : 'a'} "${name}" property`,
        });
        break;
      }
      case 'type': {
        const type = String(error.params['type']).split(',').map(article).join(' or ');
        const types = String(error.params['type']).split(',');
        const location = source.locate(path);
        const writing = () => writingAt(source, path, location);
        const quoteHint = textHint(value, types, writing) || typeHint(value, types, writing);
        diagnostics.push({
          ...base,
          code: 'schema/wrong-type',
          message: path.length > 0 ? `${described(path)} must be ${type}.` : documentNotAMapping(value, source),
          location,
          value: shown(value),
          expected: path.length > 0 ? `${type}${quoteHint}` : `${isJsonFile(location.file) ? 'an object' : 'a mapping'} of the config's sections, starting with version: 1`,
        });
        break;
      }
      case 'enum':
      case 'const': {
        const allowed = error.keyword === 'enum' ? (error.params['allowedValues'] as unknown[]) : [error.params['allowedValue']];
        // A misspelt word (`deprecatd`, `Automatc`) is most of these.
        const near = typeof value === 'string' ? didYouMean(value, allowed.filter((option): option is string => typeof option === 'string')) : '';
        // A config of a later format: the version says which portalctl reads it.
        const laterFormat = path.length === 1 && path[0] === 'version' && typeof value === 'number' && Number.isInteger(value) && value > 1;
        // `version: "1"`: the number the value stands for, quoted (a text, not the number allowed).
        const asText = typeof value === 'string' && allowed.some((option) => typeof option !== 'string' && JSON.stringify(option) === value.trim());
        const location = source.locate(path);
        diagnostics.push({
          ...base,
          code: 'schema/invalid-value',
          message: laterFormat ? `This config is written in format version ${String(value)}; this portalctl reads version 1: a later portalctl may read it.` : `${described(path)} has a value that is not allowed.${near}`,
          location,
          value: shown(value),
          expected: `${allowed.map((option) => (typeof option === 'string' ? option : JSON.stringify(option))).join(' | ')}${asText ? writtenAsText(writingAt(source, path, location)) : ''}`,
        });
        break;
      }
      default: {
        const limit = limitMessage(error, path, value, schema);
        if (limit) {
          diagnostics.push({
            ...base,
            code: `schema/${error.keyword.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`,
            message: limit.message,
            // A list too long is shown at its first entry too many, as the rule check shows it.
            location: source.locate(error.keyword === 'maxItems' && Array.isArray(value) ? [...path, Number(error.params['limit'])] : path),
            value: shown(value),
            expected: limit.expected,
          });
          break;
        }
        diagnostics.push({
          ...base,
          code: `schema/${error.keyword.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`,
          message: `${described(path)} ${error.message ?? 'is invalid'}.`,
          location: source.locate(path),
          value: shown(value),
          expected: error.keyword === 'pattern' && path.join('.') === 'portal.version' ? 'a dotted version such as "11.3"' : (error.message ?? 'a valid value'),
        });
      }
    }
  }
  return diagnostics;
}
