/**
 * `${env:NAME}`, `${file:relative/path}` and `${var:name}` references inside strings. They are
 * resolved in place; every resolved environment or file value is remembered so that `redact` can
 * put the reference text back wherever the value would be shown (output, plan files,
 * diagnostics). `$${` writes a literal `${`. portalctl's own credential variables (and those an
 * environment names for its credentials) cannot be referenced: their values would reach the
 * portal, the state and the output.
 *
 * A reference that is a whole field keeps a type (README "Typed values"): `${var:name}` is the
 * value as declared under `values:` (a number, a list, ...), and `${env:NAME}` becomes the
 * number or boolean the schema asks for at that place. `${var:}` values are config (in Git), so
 * they are not redacted; an environment value that became a number or boolean cannot be told
 * from any other number, so only text values are redacted.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isOutside } from '../../core/paths.js';
import { fileErrorReason } from '../../core/errors.js';
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import type { JsonValue } from '../../core/json.js';
import { firstInvalidUtf8 } from './source.js';
import { CREDENTIAL_VARIABLES } from '../../api/auth.js';
import { didYouMean } from '../../core/suggest.js';
import { secretScrubber, type ConcealedValue } from '../../core/secret-text.js';

/** The reference types, written in lower case (`${ENV:X}` is none of them). */
const REFERENCE_TYPES = ['env', 'file', 'var'];

/** Referenced files are small texts (certificates, descriptions); larger ones are refused. */
export const maxReferencedFileBytes = 1024 * 1024;

/** A reference, or `$${` (the escape for a literal `${`). */
const referencePattern = /\$\$\{|\$\{([A-Za-z]+):([^}]*)\}/g;
/** A string that is one reference and nothing else: it may take the type of what it stands for. */
const wholeReference = /^\$\{(env|var):([^}]*)\}$/;
const valueName = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const credentialVariables = new Set<string>(CREDENTIAL_VARIABLES);
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A resolved reference: its text in the config and the value it stands for. */
export interface ResolvedReference {
  reference: string;
  value: string;
  /** The value's size in UTF-8 bytes and a short sha256 fingerprint: what a plan may show of it. */
  bytes: number;
  readonly sha256: string;
  /** The whole text of the field it was resolved in, and that text as shown (its references in place of their values). */
  field?: { text: string; shown: string };
}

/** 4 hex characters: enough for a reviewer to see the value changed, too few to test guesses against. */
export const referenceFingerprint = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 4);

/**
 * A resolved reference whose fingerprint is computed when first read: only a plan that shows the
 * reference reads it, and hashing loads node:crypto (~5 ms), which a run that shows none (a drift
 * check that finds the portal in sync) does not otherwise load.
 */
function resolvedReference(reference: string, value: string, field: ResolvedReference['field']): ResolvedReference {
  let sha256: string | undefined;
  return {
    reference,
    value,
    bytes: Buffer.byteLength(value, 'utf8'),
    get sha256() {
      return (sha256 ??= referenceFingerprint(value));
    },
    ...(field === undefined ? {} : { field }),
  };
}

const UNSET_ENV = 'reference/unset-env';
const MISSING_FILE = 'reference/missing-file';
/** What `allowUnsetEnv` lets pass: values the deployment supplies, not the repository (a variable, a secret's file). */
const SUPPLIED_WHERE_DEPLOYED = new Set([UNSET_ENV, MISSING_FILE]);

/** What the redactor returns besides redacting: the facts shown beside each reference. */
export type ReferenceRedactor = (<T>(value: T) => T) & {
  readonly references: Readonly<Record<string, { bytes: number; sha256: string }>>;
  /** The values searched for inside any text, with their references: what the API client's errors conceal too. */
  readonly concealed: readonly ConcealedValue[];
};

export interface ReferenceContext {
  /** The config file holding the references; file references are relative to its directory. */
  file: string;
  env: NodeJS.ProcessEnv;
  locate(path: ConfigPath): SourceLocation;
  /**
   * The values `${var:name}` stands for (top-level `values:`, then the environment's); absent
   * where values may not be used (inside `values:` and `environments:` themselves).
   */
  values?: ReadonlyMap<string, JsonValue>;
  /** JSON Schema types the config allows at a path (a whole-field `${env:}` takes one of them). */
  typesAt?(path: ConfigPath): ReadonlySet<string> | undefined;
  /** More variables that may not be referenced: those environments name for their credentials. */
  credentialVariables?: ReadonlySet<string>;
  /** Top-level keys left alone (resolved on their own before the rest: `values`, `environments`). */
  skip?: ReadonlySet<string>;
  /**
   * An unset `${env:}`, or a `${file:}` whose file does not exist, is a warning, not an error
   * (`validate --allow-unset-env`: a check without the environments' variables and the secrets
   * written only where the config is deployed, as in a pre-commit hook); the field keeps the
   * reference's text, and what the schema and the rules say about that text is dropped (load.ts,
   * validate.ts).
   */
  allowUnsetEnv?: boolean;
  /** The values (`${var:}`) that hold an unset `${env:}` (the variables' names): where one is used, that is the problem (with allowUnsetEnv, a warning). */
  valuesWithUnsetEnv?: ReadonlyMap<string, readonly string[]>;
}

/**
 * Resolves every reference inside the strings of `data` (in place) and returns what was
 * resolved and the problems found. A string with an unresolvable reference keeps its text.
 */
export function resolveReferences(data: JsonValue, context: ReferenceContext): { data: JsonValue; resolved: ResolvedReference[]; diagnostics: Diagnostic[] } {
  const resolved: ResolvedReference[] = [];
  const diagnostics: Diagnostic[] = [];
  const report = (outcome: Problem, reference: string, path: ConfigPath): void => {
    const allowed = context.allowUnsetEnv === true && SUPPLIED_WHERE_DEPLOYED.has(outcome.code);
    diagnostics.push({
      severity: allowed ? 'warning' : 'error',
      code: outcome.code,
      message: allowed ? `${outcome.problem} What depends on it is not checked (--allow-unset-env).` : outcome.problem,
      location: context.locate([...path]),
      value: reference,
      expected: outcome.expected,
    });
  };
  const remember = (reference: string, value: string, field: ResolvedReference['field']): void => void resolved.push(resolvedReference(reference, value, field));
  const replace = (text: string, path: ConfigPath): JsonValue => {
    if (!text.includes('${')) return text;
    const whole = wholeReference.exec(text);
    if (whole) return resolveWhole(whole[1] as 'env' | 'var', whole[2] ?? '', text, path);
    let failed = false;
    // The field as shown: each env/file reference in place of its value (var values are config, shown).
    let shown = '';
    let shownUpTo = 0;
    const secrets: { reference: string; value: string }[] = [];
    const result = text.replace(referencePattern, (reference: string, type: string | undefined, argument: string | undefined, offset: number) => {
      const value = resolvedPiece(reference, type, argument);
      shown += text.slice(shownUpTo, offset) + (type === undefined || type === 'var' || value === reference ? value : reference);
      shownUpTo = offset + reference.length;
      return value;
    });
    // A `${` that begins no reference (unclosed, or without a type) was sent as it is: a typo
    // such as `${env:NAME` reached the portal as the name.
    const stray = /\$\{/.test(text.replace(referencePattern, ''));
    if (stray) {
      report({ code: 'reference/malformed', problem: 'A "${" begins no reference here: it is not closed by "}", or names no type.', expected: '${env:NAME}, ${file:relative/path} or ${var:name}; $${ for a literal ${' }, text, path);
      return text;
    }
    if (failed) return text;
    // An empty text is every empty field's: it names no field.
    const field = result === '' ? undefined : { text: result, shown: shown + text.slice(shownUpTo) };
    for (const secret of secrets) remember(secret.reference, secret.value, field);
    return result;

    function resolvedPiece(reference: string, type: string | undefined, argument: string | undefined): string {
      if (type === undefined || argument === undefined) return '${';
      const outcome = resolveOne(type, argument, context);
      if ('problem' in outcome) {
        failed = true;
        report(outcome, reference, path);
        return reference;
      }
      if (typeof outcome.value !== 'string') {
        if (typeof outcome.value === 'object' && outcome.value !== null) {
          failed = true;
          report({ code: 'reference/not-text', problem: `${reference} is a ${Array.isArray(outcome.value) ? 'list' : 'mapping'}; inside a longer text only a text, number or boolean can be used.`, expected: `the reference as the whole value (field: ${reference})` }, reference, path);
          return reference;
        }
        return String(outcome.value);
      }
      if (type !== 'var') secrets.push({ reference, value: outcome.value });
      return outcome.value;
    }
  };
  /** A field that is one reference: the value with its type (README "Typed values"). */
  const resolveWhole = (type: 'env' | 'var', argument: string, reference: string, path: ConfigPath): JsonValue => {
    const outcome = resolveOne(type, argument, context);
    if ('problem' in outcome) {
      report(outcome, reference, path);
      return reference;
    }
    // A value declared in YAML has its type already; a text (from ${env:} inside values:, or quoted) is typed like an environment variable.
    if (type === 'var' && typeof outcome.value !== 'string') return structuredClone(outcome.value);
    const text = outcome.value as string;
    const types = context.typesAt?.(path);
    const field = text === '' ? undefined : { text, shown: reference };
    if (!types || types.size === 0 || types.has('string')) {
      if (type === 'env') remember(reference, text, field);
      return text;
    }
    const converted = typedText(text, types);
    // A number past what a double holds (1e400, 400 digits) would read as infinity, which no
    // request can carry; said here, at the reference, as the file's own are where written (source.ts).
    if (typeof converted === 'number' && !Number.isFinite(converted)) {
      report(
        {
          code: 'reference/non-finite-number',
          problem: `${type === 'env' ? 'The environment variable' : 'The value'} ${argument} holds a number too large to hold (it reads as infinity), which JSON, what the portal's API takes, cannot write.`,
          expected: 'a finite number (between about -1.8e308 and 1.8e308)',
        },
        reference,
        path,
      );
      return reference;
    }
    if (converted !== undefined) return converted;
    // Left as text: the schema check reports it at the reference, showing the reference (redacted).
    if (type === 'env') remember(reference, text, field);
    return text;
  };

  if (typeof data === 'string') return { data: replace(data, []), resolved, diagnostics };
  // One shared path (copied only for a diagnostic); the data was depth-checked when it was read.
  const path: (string | number)[] = [];
  const walk = (value: JsonValue): void => {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        const child = value[index] as JsonValue;
        path.push(index);
        if (typeof child === 'string') value[index] = replace(child, path);
        else if (typeof child === 'object' && child !== null) walk(child);
        path.pop();
      }
    } else if (typeof value === 'object' && value !== null) {
      // for-in: no array of keys per object (only existing properties are assigned).
      for (const key in value) {
        if (path.length === 0 && context.skip?.has(key)) continue;
        const child = value[key] as JsonValue;
        path.push(key);
        if (typeof child === 'string') value[key] = replace(child, path);
        else if (typeof child === 'object' && child !== null) walk(child);
        path.pop();
      }
    }
  };
  walk(data);
  return { data, resolved, diagnostics };
}

/** An environment variable's text as the integer, number, boolean or null a field takes; undefined when it is none of them. */
function typedText(text: string, types: ReadonlySet<string>): JsonValue | undefined {
  const trimmed = text.trim();
  if ((types.has('integer') || types.has('number')) && /^-?\d+$/.test(trimmed)) return Number(trimmed);
  if (types.has('number') && /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return Number(trimmed);
  if (types.has('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  if (types.has('null') && (trimmed === 'null' || trimmed === '')) return null;
  return undefined;
}


type Problem = { problem: string; code: string; expected: string };
type Outcome = { value: JsonValue } | Problem;

function resolveOne(type: string, argument: string, context: ReferenceContext): Outcome {
  if (type === 'var') return resolveVar(argument, context);
  if (type === 'env') {
    if (!envName.test(argument)) {
      return { code: 'reference/invalid-env-name', problem: `"${argument}" is not an environment variable name.`, expected: '${env:NAME} with letters, digits and _' };
    }
    if (credentialVariables.has(argument) || context.credentialVariables?.has(argument)) {
      return {
        code: 'reference/credential',
        problem: `${argument} holds portalctl's own credential; it cannot be referenced from the config (its value would be sent to the portal and kept in the state).`,
        expected: `a variable other than ${[...CREDENTIAL_VARIABLES, ...(context.credentialVariables ?? [])].join(', ')}`,
      };
    }
    const value = context.env[argument];
    if (value === undefined) {
      return { code: UNSET_ENV, problem: `The environment variable ${argument} is not set.`, expected: `export ${argument} before running portalctl` };
    }
    return { value };
  }
  if (type === 'file') return resolveFile(argument, context.file);
  return { code: 'reference/unknown-type', problem: `Unknown reference type "${type}".${didYouMean(type, REFERENCE_TYPES)}`, expected: '${env:NAME}, ${file:relative/path} or ${var:name}' };
}

/** The variables `env` does not set whose `${env:}` references `value` still holds (an unresolved reference keeps its text). */
export function unsetEnvIn(value: JsonValue, env: NodeJS.ProcessEnv, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const [, type, argument] of value.matchAll(referencePattern)) if (type === 'env' && argument !== undefined && env[argument] === undefined) into.add(argument);
  } else if (Array.isArray(value)) {
    for (const child of value) unsetEnvIn(child, env, into);
  } else if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) unsetEnvIn(child, env, into);
  }
  return into;
}

/** `${var:name}`: a value of the top-level `values:` or of the selected environment's. */
function resolveVar(name: string, context: ReferenceContext): Outcome {
  if (!context.values) {
    return { code: 'reference/var-here', problem: `\${var:${name}} cannot be used here: values and environments are declared with plain values, ${'${env:}'} and ${'${file:}'} references.`, expected: 'a plain value' };
  }
  if (!valueName.test(name)) return { code: 'reference/invalid-var-name', problem: `"${name}" is not a value name.`, expected: '${var:name} with letters, digits, _, . and -' };
  const unset = context.valuesWithUnsetEnv?.get(name);
  if (unset) {
    const references = unset.map((variable) => `\${env:${variable}}`).join(', ');
    const problem = `The value ${name} holds ${references}, which ${unset.length === 1 ? 'is' : 'are'} not set.`;
    return { code: UNSET_ENV, problem, expected: `export ${unset.join(', ')} before running portalctl` };
  }
  const value = context.values.get(name);
  if (value === undefined) {
    const declared = [...context.values.keys()].sort();
    return {
      code: 'reference/unknown-var',
      problem: `No value named ${name} is declared${declared.length ? ` (declared: ${declared.join(', ')})` : ''}.`,
      expected: `${name} under \`values:\` or under the environment's \`values:\``,
    };
  }
  return { value };
}

function resolveFile(argument: string, configFile: string): Outcome {
  const directory = dirname(resolve(configFile));
  const expected = "a file inside the config file's directory, e.g. ${file:certs/federation.pem}";
  if (argument === '' || isAbsolute(argument)) {
    return { code: 'reference/file-escape', problem: `File references are relative to the config file's directory; "${argument}" is not.`, expected };
  }
  const target = resolve(directory, argument);
  if (isOutside(target, directory)) {
    return { code: 'reference/file-escape', problem: `"${argument}" points outside the config file's directory.`, expected };
  }
  let bytes: Buffer;
  try {
    // Symbolic links may not lead outside the directory either.
    const real = realpathSync(target);
    if (isOutside(real, realpathSync(directory))) {
      return { code: 'reference/file-escape', problem: `"${argument}" links to a file outside the config file's directory.`, expected };
    }
    const info = statSync(real);
    if (!info.isFile()) return { code: 'reference/not-a-file', problem: `"${argument}" is not a file.`, expected };
    if (info.size > maxReferencedFileBytes) {
      return { code: 'reference/file-too-large', problem: `"${argument}" has ${info.size} bytes; referenced files are limited to ${maxReferencedFileBytes}.`, expected: `at most ${maxReferencedFileBytes} bytes` };
    }
    bytes = readFileSync(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { code: MISSING_FILE, problem: `The referenced file "${argument}" does not exist (looked for ${target}).`, expected };
    }
    return { code: 'reference/unreadable-file', problem: `The referenced file "${argument}" cannot be read: ${fileErrorReason(error)}.`, expected: 'a file portalctl may read' };
  }
  // Decoded strictly: a lenient decode would send U+FFFD in place of each bad byte (a binary file, another encoding).
  try {
    return { value: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { code: 'reference/file-not-text', problem: `"${argument}" is not UTF-8 text (at byte offset ${firstInvalidUtf8(bytes)}).`, expected: 'a UTF-8 text file (a PEM certificate, a description)' };
  }
}

/**
 * Values shorter than this are put back only where a whole text is a field's resolved text: a
 * short value (`e`, `Public`) replaced inside every text made the plan unreadable and the state
 * record other texts as fingerprints (`Public Works` as `${env:NOTE} Works`). Secrets (tokens,
 * passwords, certificates) are longer, and are put back inside any text (an echo in an error).
 */
const MIN_EMBEDDED_SECRET_LENGTH = 8;

/**
 * A function that replaces resolved reference values in strings by their `${...}` text, in any
 * JSON-like value: a text that is a field's whole resolved text by that field as written, and
 * values of MIN_EMBEDDED_SECRET_LENGTH or more wherever they appear, in any form a quote gives
 * them (escaped, encoded, cut short: core/secret-text.ts), all at once, so a value containing or
 * overlapping another leaves no part of either.
 */
export function redactor(resolved: readonly ResolvedReference[]): ReferenceRedactor {
  const fields = new Map(resolved.flatMap((entry) => (entry.field ? [[entry.field.text, entry.field.shown] as const] : [])));
  const concealed = [...new Map(resolved.filter((entry) => entry.value.length >= MIN_EMBEDDED_SECRET_LENGTH).map((entry) => [entry.value, entry.reference])).entries()].map(
    ([value, reference]): ConcealedValue => ({ value, shown: reference, minLength: MIN_EMBEDDED_SECRET_LENGTH }),
  );
  const scrub = secretScrubber(concealed);
  const redactText = (text: string): string => fields.get(text) ?? scrub(text);
  const redact = <T>(value: T): T => {
    if (fields.size === 0 && concealed.length === 0) return value;
    if (typeof value === 'string') return redactText(value) as T;
    if (Array.isArray(value)) return value.map((child: unknown) => redact(child)) as T;
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, redact(child)])) as T;
    }
    return value;
  };
  // The facts alone (never the value), the fingerprint still computed when first read.
  const references = Object.fromEntries(
    resolved.map((entry) => [
      entry.reference,
      {
        bytes: entry.bytes,
        get sha256() {
          return entry.sha256;
        },
      },
    ]),
  );
  return Object.assign(redact, { references, concealed });
}
