/**
 * The tests are TypeScript too: the build compiles src/ only, so this checks src/ and test/
 * together (tsconfig.test.json), and that a type error in a test would be caught.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `file:line:column message` of every type error of the project, with `extra` files added (path -> text). */
function typeErrors(extra: Record<string, string> = {}): string[] {
  const configPath = `${root}tsconfig.test.json`;
  const { config } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (path) => extra[path] ?? readFile(path);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (path) => path in extra || fileExists(path);
  const program = ts.createProgram({ rootNames: [...parsed.fileNames, ...Object.keys(extra)], options: parsed.options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName.slice(root.length)}:${line + 1}:${character + 1} ${message}`;
  });
}

describe('type check', () => {
  it('src/ and test/ have no type errors, and a wrong type in a test is one', () => {
    const bad = `${root}test/lint/bad-types.ts`;
    const errors = typeErrors({ [bad]: "import { canonicalJson } from '../../src/core/json.js';\nexport const n: number = canonicalJson({});\n" });
    expect(errors.filter((error) => !error.startsWith('test/lint/bad-types.ts'))).toEqual([]);
    expect(errors.filter((error) => error.startsWith('test/lint/bad-types.ts:2:14'))).toHaveLength(1);
  });
});
