// Lint: TypeScript's recommended rules, and the shape of the house (docs: README "Architecture").
// Imports run downward only: cli -> engine -> kinds -> api / state -> core; the emulator
// stands alone; core imports nothing of ours. ESLint's own no-restricted-imports enforces the
// directions; test/lint/import-graph.ts checks the same rules (and cycles) on the resolved graph.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const rooms = ['core', 'api', 'state', 'kinds', 'engine', 'cli', 'emulator'];
/** The composition root: src/registry.ts and src/build-schema.ts. */
const compositionRoot = ['registry', 'build-schema'];
const others = (...allowed) => [...rooms.filter((room) => !allowed.includes(room)), ...compositionRoot];

/**
 * Each room (a folder under src/, or '.' for the files directly in src/) and what it must not
 * import: whole rooms, composition-root files, and for the engine every kind module except the
 * listed ones (the Kind contract and the containers' shape).
 */
export const boundaries = [
  { room: 'core', forbidden: others('core'), message: 'core is the leaf: it imports nothing of ours.' },
  { room: 'api', forbidden: others('api', 'core'), message: 'api imports only core.' },
  { room: 'state', forbidden: others('state', 'core'), message: 'state imports only core.' },
  { room: 'kinds', forbidden: others('kinds', 'api', 'core'), message: 'kinds import only api and core.' },
  {
    room: 'engine',
    forbidden: others('engine', 'kinds', 'api', 'state', 'core'),
    message: 'the engine never imports the CLI, the emulator or the registry: the kind set is passed in.',
    kindsAllowed: ['toolkit/contract', 'toolkit/containers'],
    kindsMessage: 'the engine knows the Kind contract and the containers (src/kinds/toolkit/), never a particular kind or the registry (src/kinds/index.ts).',
  },
  { room: 'emulator', forbidden: others('emulator'), message: 'the emulator imports nothing from the rest of src/.' },
  { room: '.', forbidden: ['cli', 'emulator'], message: 'the composition root sits below the CLI.' },
];

/** Deepest folder level below a room that the ESLint blocks cover; the import-graph test covers all. */
const deepestLevel = 6;
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * no-restricted-imports blocks for one room: one per folder depth, because which relative
 * specifier leaves the room depends on how deep the importing file sits (from
 * src/engine/config/, '../kind-set.js' is the engine's own, '../../registry.js' the composition
 * root).
 */
function restrictedImportBlocks({ room, forbidden, message, kindsAllowed, kindsMessage }) {
  const blocks = [];
  for (let level = room === '.' ? 0 : 1; level <= (room === '.' ? 0 : deepestLevel); level += 1) {
    const toSrc = level === 0 ? '^\\./' : `^(\\./)?(\\.\\./){${level}}`;
    const folders = forbidden.filter((name) => rooms.includes(name)).map(escape);
    const files = forbidden.filter((name) => compositionRoot.includes(name)).map(escape);
    const patterns = [];
    if (folders.length > 0) patterns.push({ regex: `${toSrc}(${folders.join('|')})(/|$)`, message });
    if (files.length > 0) patterns.push({ regex: `${toSrc}(${files.join('|')})(\\.[jt]s)?$`, message });
    if (kindsAllowed) {
      const allowed = kindsAllowed.map(escape).join('|');
      patterns.push({ regex: `${toSrc}kinds(/?$|/(?!(${allowed})\\.[jt]s$))`, message: kindsMessage });
    }
    const folder = room === '.' ? 'src/' : `src/${room}/${'*/'.repeat(level - 1)}`;
    blocks.push({ files: [`${folder}*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } });
  }
  return blocks;
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.generated.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  ...boundaries.flatMap(restrictedImportBlocks),
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
