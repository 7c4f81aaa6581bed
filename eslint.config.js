// Lint: TypeScript's recommended rules, and the shape of the house (docs: README "Architecture").
// Imports run downward only: cli -> engine -> kinds -> api / state -> core; the emulator
// stands alone; core imports nothing of ours; no import cycles.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const rooms = ['core', 'api', 'state', 'kinds', 'engine', 'cli', 'emulator'];
const top = ['./src/registry.ts', './src/build-schema.ts'];
const others = (...allowed) => [...rooms.filter((room) => !allowed.includes(room)).map((room) => `./src/${room}`), ...top];

/** Each room and the rooms it must not import (everything not below it). */
export const zones = [
  { target: './src/core', from: others('core'), message: 'core is the leaf: it imports nothing of ours.' },
  { target: './src/api', from: others('api', 'core'), message: 'api imports only core.' },
  { target: './src/state', from: others('state', 'core'), message: 'state imports only core.' },
  { target: './src/kinds', from: others('kinds', 'api', 'core'), message: 'kinds import only api and core.' },
  { target: './src/engine', from: others('engine', 'kinds', 'api', 'state', 'core'), message: 'the engine never imports the CLI, the emulator or the registry: the kind set is passed in.' },
  // The engine knows the Kind contract and the containers' shape, never a particular kind or the registry.
  { target: './src/engine', from: './src/kinds', except: ['./contract.ts', './containers.ts'], message: 'the engine knows the Kind contract, never a particular kind or the registry (src/kinds/index.ts).' },
  { target: './src/emulator', from: others('emulator'), message: 'the emulator imports nothing from the rest of src/.' },
  { target: top, from: ['./src/cli', './src/emulator'], message: 'the composition root sits below the CLI.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.generated.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // import-x must parse the TypeScript files it follows, or no-cycle sees no imports in them.
      'import-x/extensions': ['.ts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
