/**
 * `${env:NAME}` and `${file:relative/path}` references inside strings. They are resolved in
 * place; every resolved value is remembered so that `redact` can put the reference text back
 * wherever the value would be shown (output, plan files, diagnostics). `$${` writes a literal
 * `${`. portalctl's own credential variables cannot be referenced: their values would reach the
 * portal, the state and the output.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import type { ConfigPath } from '../../kinds/contract.js';
import type { JsonValue } from '../../core/json.js';
import { CREDENTIAL_VARIABLES } from '../../api/auth.js';

/** Referenced files are small texts (certificates, descriptions); larger ones are refused. */
export const maxReferencedFileBytes = 1024 * 1024;

/** A reference, or `$${` (the escape for a literal `${`). */
const referencePattern = /\$\$\{|\$\{([A-Za-z]+):([^}]*)\}/g;
const credentialVariables = new Set<string>(CREDENTIAL_VARIABLES);
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A resolved reference: its text in the config and the value it stands for. */
export interface ResolvedReference {
  reference: string;
  value: string;
  /** The value's size in UTF-8 bytes and a short sha256 fingerprint: what a plan may show of it. */
  bytes: number;
  sha256: string;
}

/** 4 hex characters: enough for a reviewer to see the value changed, too few to test guesses against. */
export const referenceFingerprint = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 4);

/** What the redactor returns besides redacting: the facts shown beside each reference. */
export type ReferenceRedactor = (<T>(value: T) => T) & { readonly references: Readonly<Record<string, { bytes: number; sha256: string }>> };

export interface ReferenceContext {
  /** The config file holding the references; file references are relative to its directory. */
  file: string;
  env: NodeJS.ProcessEnv;
  locate(path: ConfigPath): SourceLocation;
}

/**
 * Resolves every reference inside the strings of `data` (in place) and returns what was
 * resolved and the problems found. A string with an unresolvable reference keeps its text.
 */
export function resolveReferences(data: JsonValue, context: ReferenceContext): { data: JsonValue; resolved: ResolvedReference[]; diagnostics: Diagnostic[] } {
  const resolved: ResolvedReference[] = [];
  const diagnostics: Diagnostic[] = [];
  const replace = (text: string, path: ConfigPath): string => {
    if (!text.includes('${')) return text;
    let failed = false;
    const result = text.replace(referencePattern, (reference: string, type: string | undefined, argument: string | undefined) => {
      if (type === undefined || argument === undefined) return '${';
      const outcome = resolveOne(type, argument, context);
      if ('problem' in outcome) {
        failed = true;
        diagnostics.push({
          severity: 'error',
          code: outcome.code,
          message: outcome.problem,
          location: context.locate([...path]),
          value: reference,
          expected: outcome.expected,
        });
        return reference;
      }
      resolved.push({ reference, value: outcome.value, bytes: Buffer.byteLength(outcome.value, 'utf8'), sha256: referenceFingerprint(outcome.value) });
      return outcome.value;
    });
    return failed ? text : result;
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

type Outcome = { value: string } | { problem: string; code: string; expected: string };

function resolveOne(type: string, argument: string, context: ReferenceContext): Outcome {
  if (type === 'env') {
    if (!envName.test(argument)) {
      return { code: 'reference/invalid-env-name', problem: `"${argument}" is not an environment variable name.`, expected: '${env:NAME} with letters, digits and _' };
    }
    if (credentialVariables.has(argument)) {
      return {
        code: 'reference/credential',
        problem: `${argument} holds portalctl's own credential; it cannot be referenced from the config (its value would be sent to the portal and kept in the state).`,
        expected: `a variable other than ${CREDENTIAL_VARIABLES.join(', ')}`,
      };
    }
    const value = context.env[argument];
    if (value === undefined) {
      return { code: 'reference/unset-env', problem: `The environment variable ${argument} is not set.`, expected: `export ${argument} before running portalctl` };
    }
    return { value };
  }
  if (type === 'file') return resolveFile(argument, context.file);
  return { code: 'reference/unknown-type', problem: `Unknown reference type "${type}".`, expected: '${env:NAME} or ${file:relative/path}' };
}

function resolveFile(argument: string, configFile: string): Outcome {
  const directory = dirname(resolve(configFile));
  const escapes = (target: string, root: string): boolean => {
    const path = relative(root, target);
    return path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path);
  };
  const expected = "a file inside the config file's directory, e.g. ${file:certs/federation.pem}";
  if (argument === '' || isAbsolute(argument)) {
    return { code: 'reference/file-escape', problem: `File references are relative to the config file's directory; "${argument}" is not.`, expected };
  }
  const target = resolve(directory, argument);
  if (escapes(target, directory)) {
    return { code: 'reference/file-escape', problem: `"${argument}" points outside the config file's directory.`, expected };
  }
  try {
    // Symbolic links may not lead outside the directory either.
    const real = realpathSync(target);
    if (escapes(real, realpathSync(directory))) {
      return { code: 'reference/file-escape', problem: `"${argument}" links to a file outside the config file's directory.`, expected };
    }
    const info = statSync(real);
    if (!info.isFile()) return { code: 'reference/missing-file', problem: `"${argument}" is not a file.`, expected };
    if (info.size > maxReferencedFileBytes) {
      return { code: 'reference/file-too-large', problem: `"${argument}" has ${info.size} bytes; referenced files are limited to ${maxReferencedFileBytes}.`, expected: `at most ${maxReferencedFileBytes} bytes` };
    }
    return { value: readFileSync(real, 'utf8') };
  } catch {
    return { code: 'reference/missing-file', problem: `The referenced file "${argument}" does not exist (looked for ${target}).`, expected };
  }
}

/**
 * A function that replaces every resolved reference value inside strings by its `${...}`
 * text, in any JSON-like value. Longer values first, so a value containing another is whole.
 */
export function redactor(resolved: readonly ResolvedReference[]): ReferenceRedactor {
  const secrets = [...new Map(resolved.filter((entry) => entry.value !== '').map((entry) => [entry.value, entry.reference])).entries()]
    .sort((a, b) => b[0].length - a[0].length);
  const redactText = (text: string): string => {
    let result = text;
    for (const [value, reference] of secrets) if (result.includes(value)) result = result.split(value).join(reference);
    return result;
  };
  const redact = <T>(value: T): T => {
    if (secrets.length === 0) return value;
    if (typeof value === 'string') return redactText(value) as T;
    if (Array.isArray(value)) return value.map((child: unknown) => redact(child)) as T;
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, redact(child)])) as T;
    }
    return value;
  };
  const references = Object.fromEntries(resolved.map((entry) => [entry.reference, { bytes: entry.bytes, sha256: entry.sha256 }]));
  return Object.assign(redact, { references });
}
