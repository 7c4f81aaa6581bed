/** Where something was declared: a position in a YAML/JSON source file (1-based). */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export type Severity = 'error' | 'warning';

/**
 * One finding of validation. Every diagnostic names what is wrong, where (address and
 * file:line:column), the offending value and what would be valid, so a user can fix it
 * without reading the spec.
 */
export interface Diagnostic {
  severity: Severity;
  /** Stable machine-readable code, e.g. `category-schema/too-many-trees`. */
  code: string;
  message: string;
  /** Address of the managed object (DESIGN.md "Addresses"), when the problem belongs to one. */
  address?: string;
  location?: SourceLocation;
  /** The offending value, already redacted (a reference is shown, never its resolved value). */
  value?: unknown;
  /** What would be valid. */
  expected?: string;
}

/** `file:line:column`, as every message and diagnostic names a place; '' without one. */
export function formatLocation(location: SourceLocation | undefined): string {
  return location ? `${location.file}:${location.line}:${location.column}` : '';
}
