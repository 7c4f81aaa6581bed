/**
 * Deterministic (seeded) generators for the benchmarks:
 *
 * - largeOrganization: the config and a matching recorded state of a large organization
 *   (figure 2, `plan --refresh=false`), with a known set of differences.
 * - economyOrganization: emulator data plus a config of mixed kinds over it (figures 3 and 4),
 *   with a known number of writes needed.
 *
 * Both return plain JSON values; the runner writes them to a temporary directory.
 */
import { seededRandom } from './random.mjs';

const WORDS = [
  'Hydrology', 'Transport', 'Parcels', 'Zoning', 'Utilities', 'Imagery', 'Elevation', 'Census', 'Wildlife', 'Forestry',
  'Geology', 'Soils', 'Climate', 'Emergency', 'Health', 'Schools', 'Parks', 'Trails', 'Bridges', 'Streets',
  'Rail', 'Transit', 'Airports', 'Harbours', 'Wetlands', 'Rivers', 'Lakes', 'Coasts', 'Floodplains', 'Landcover',
];

/** Recorded times in generated states: fixed, so the files are byte-for-byte reproducible. */
const RECORDED_AT = '2025-01-01T00:00:00.000Z';

function title(random, ...numbers) {
  return `${random.pick(WORDS)} ${numbers.join('.')}`;
}

/**
 * A full category schema: 5 trees (the most allowed), 4 levels deep (tree included), exactly
 * 200 categories below the trees (the most allowed): per tree 4 + 4x3 + 4x3x2 = 40.
 */
export function fullCategorySchema(random) {
  const trees = [];
  for (let t = 1; t <= 5; t++) {
    const tree = { title: title(random, t), description: `Tree ${t} of the category schema`, categories: [] };
    for (let a = 1; a <= 4; a++) {
      const level2 = { title: title(random, t, a), categories: [] };
      for (let b = 1; b <= 3; b++) {
        const level3 = { title: title(random, t, a, b), categories: [] };
        for (let c = 1; c <= 2; c++) level3.categories.push({ title: title(random, t, a, b, c) });
        level2.categories.push(level3);
      }
      tree.categories.push(level2);
    }
    trees.push(tree);
  }
  return trees;
}

/** A small schema: one tree with `size` categories. */
function smallCategorySchema(random, size, label) {
  return [{ title: `${label} ${random.pick(WORDS)}`, categories: Array.from({ length: size }, (_, i) => ({ title: title(random, i + 1) })) }];
}

/** Indices 0..n-1 in a seeded random order. */
function shuffledIndices(random, n) {
  const indices = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [indices[i], indices[j]] = [indices[j], indices[i]];
  }
  return indices;
}

function chosen(random, n, count) {
  return new Set(shuffledIndices(random, n).slice(0, count));
}

/** A status different from `desired` that the plan must treat as a difference (never the authoritative pair). */
function differentStatus(desired) {
  if (desired === 'deprecated') return null;
  return 'deprecated';
}

function stateEntry(kind, ids, value) {
  return { kind, ids, value, status: 'present', appliedAt: RECORDED_AT, observedAt: RECORDED_AT };
}

function fixedLineage(random) {
  const hex = random.hex(32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Figure 2's organization: `groups` groups with a full category schema, `items` items with a
 * status, `users` users with `tasksPerUser` tasks each (tasks only: user levels do not exist at
 * the 11.3 the config declares), `roles` custom roles.
 *
 * The recorded state matches the config except for a fixed, known set of objects (1 in 100
 * items, groups and users' first tasks, 1 in 50 roles), so the plan does real work (diffs,
 * patches, rendering) and its size can be checked: `changes.total` operations, all updates or
 * status clears.
 */
export function largeOrganization({ seed, url, groups = 1000, items = 50_000, users = 5_000, tasksPerUser = 3, roles = 500 }) {
  const random = seededRandom(seed);
  const resources = {};
  const changes = { group: 0, item: 0, task: 0, role: 0, total: 0 };

  const groupEntries = [];
  for (let g = 0; g < groups; g++) {
    const id = random.hex();
    const categorySchema = fullCategorySchema(random);
    groupEntries.push({ id, categorySchema });
    let recorded = categorySchema;
    if (g % 100 === 50) {
      recorded = structuredClone(categorySchema);
      recorded[0].title = `${recorded[0].title} (renamed)`;
      changes.group++;
    }
    resources[`group[${id}].categorySchema`] = stateEntry('group.categorySchema', { groupId: id }, recorded);
  }

  const statuses = ['org_authoritative', 'deprecated', 'none'];
  const itemEntries = [];
  for (let i = 0; i < items; i++) {
    const id = random.hex();
    const status = random.pick(statuses);
    itemEntries.push({ id, status });
    const value = status === 'none' ? null : status;
    const recorded = i % 100 === 7 ? differentStatus(value) : value;
    if (recorded !== value) changes.item++;
    resources[`item[${id}].status`] = stateEntry('item.status', { itemId: id }, recorded);
  }

  const userEntries = [];
  for (let u = 0; u < users; u++) {
    const username = `member${String(u).padStart(5, '0')}`;
    const tasks = Array.from({ length: tasksPerUser }, () => ({ id: random.hex(12), enabled: true }));
    userEntries.push({ username, tasks });
    tasks.forEach((task, t) => {
      const stale = t === 0 && u % 100 === 13;
      if (stale) changes.task++;
      resources[`user[${username}].task[${task.id}]`] = stateEntry('user.task', { username, taskId: task.id }, { active: !stale });
    });
  }

  const roleEntries = [];
  for (let r = 0; r < roles; r++) {
    const id = random.hex(16);
    const role = { id, name: `${random.pick(WORDS)} role ${r}`, description: `Custom role ${r} for ${random.pick(WORDS).toLowerCase()} work` };
    roleEntries.push(role);
    const stale = r % 50 === 21;
    if (stale) changes.role++;
    resources[`role[${id}]`] = stateEntry('role', { roleId: id }, { name: role.name, description: stale ? 'An older description' : role.description });
  }
  changes.total = changes.group + changes.item + changes.task + changes.role;

  const config = {
    version: 1,
    portal: { url, edition: 'self-managed', version: '11.3' },
    groups: groupEntries,
    items: itemEntries,
    users: userEntries,
    roles: roleEntries,
  };
  const state = { formatVersion: 1, lineage: fixedLineage(random), serial: 1, portal: { url }, resources };
  return { config, state, changes, declared: Object.keys(resources).length };
}

/**
 * The recorded state's file text exactly as portalctl writes it: the serializer is imported from
 * the build (dist/), after the runner has built it, so the benchmark reads what users' states hold.
 */
export async function recordedStateText(state) {
  const { serializeState } = await import('../../dist/state/format.js');
  return serializeState(state);
}

/**
 * Figures 3 and 4: emulator data and a config of mixed kinds over it. Declared objects: the
 * security policy, the organization's category schema, `groups` group schemas, `items` item
 * statuses, `users` x `tasksPerUser` tasks and `roles` roles. Exactly `writes` of them differ
 * from the emulator's data (`changed` per kind, the organization's two settings, and items for
 * the remainder), so an apply must send exactly `writes` requests.
 *
 * Group schemas and user tasks have no organization-wide list in the API: each group and each
 * user is one read of its own ("owners"). The rest is read through lists.
 */
/** When the generated organization's first group and item were created (epoch ms). */
const CREATED = Date.UTC(2020, 0, 1);

export function economyOrganization({ seed, url, groups = 200, items = 1248, users = 200, tasksPerUser = 2, roles = 150, writes = 1000, changed = { group: 100, task: 150, role: 48 } }) {
  const random = seededRandom(seed);
  // Differences per kind; the organization's two settings always differ, items take the remainder.
  const differ = { ...changed };
  differ.item = writes - 2 - differ.group - differ.task - differ.role;
  if (differ.item < 0 || differ.item > items || differ.task > users * tasksPerUser) throw new Error(`Cannot spread ${writes} writes over this organization.`);

  const organization = {
    id: 'BenchOrg00000001',
    name: 'Benchmark Organization',
    edition: 'self-managed',
    version: '11.3',
    access: 'public',
    isVerified: false,
    securityPolicy: { minLength: 8, minDigit: 1 },
    categorySchema: smallCategorySchema(random, 4, 'Organization'),
  };
  const data = {
    organization,
    users: [{ username: 'admin', fullName: 'Benchmark Administrator', role: 'org_admin', password: 'admin-password' }],
    tokens: [{ token: 'admin-token', username: 'admin' }],
    roles: [],
    groups: [],
    items: [],
  };
  const config = {
    version: 1,
    portal: { url, edition: 'self-managed', version: '11.3' },
    organization: {
      securityPolicy: { minLength: 12, minDigit: 1 },
      categorySchema: smallCategorySchema(random, 6, 'Organization'),
    },
    groups: [],
    items: [],
    users: [],
    roles: [],
  };

  const changedGroups = chosen(random, groups, differ.group);
  for (let g = 0; g < groups; g++) {
    const id = random.hex();
    const live = smallCategorySchema(random, 5, 'Group');
    data.groups.push({ id, title: `Group ${g}`, owner: 'admin', categorySchema: live, created: CREATED + g * 1000 });
    config.groups.push({ id, categorySchema: changedGroups.has(g) ? smallCategorySchema(random, 6, 'Group') : live });
  }

  const statuses = ['org_authoritative', 'deprecated', 'none'];
  const changedItems = chosen(random, items, differ.item);
  for (let i = 0; i < items; i++) {
    const id = random.hex();
    const desired = random.pick(statuses);
    const live = changedItems.has(i) ? differentStatus(desired === 'none' ? null : desired) : desired === 'none' ? null : desired;
    // Created a second apart, as a real organization's are: a search past 10,000 results is read in windows of creation time.
    data.items.push({ id, title: `Item ${i}`, owner: 'admin', access: 'org', created: CREATED + i * 1000, ...(live ? { contentStatus: live } : {}) });
    config.items.push({ id, status: desired });
  }

  const changedTasks = chosen(random, users * tasksPerUser, differ.task);
  for (let u = 0; u < users; u++) {
    const username = `member${String(u).padStart(4, '0')}`;
    const tasks = Array.from({ length: tasksPerUser }, (_, t) => ({ id: random.hex(12), title: `Task ${t}`, active: !changedTasks.has(u * tasksPerUser + t) }));
    data.users.push({ username, fullName: `Member ${u}`, role: 'org_user', tasks });
    config.users.push({ username, tasks: tasks.map((task) => ({ id: task.id, enabled: true })) });
  }

  const changedRoles = chosen(random, roles, differ.role);
  for (let r = 0; r < roles; r++) {
    const id = random.hex(16);
    const name = `${random.pick(WORDS)} role ${r}`;
    const description = `Custom role ${r}`;
    data.roles.push({ id, name, description, privileges: ['portal:user:viewOrgItems'] });
    config.roles.push({ id, name, description: changedRoles.has(r) ? `${description}, revised` : description });
  }

  const declared = 2 + groups + items + users * tasksPerUser + roles;
  return {
    data,
    config,
    declared,
    /** Declared objects read through lists (or alone, the organization's two settings). */
    listed: 2 + items + roles,
    /** Groups and users: one read each for their schema or tasks. */
    owners: groups + users,
    writes: 2 + differ.group + differ.item + differ.task + differ.role,
  };
}

/**
 * The large organization's config as people write it: a directory of five block-style YAML
 * files (portal, groups, items, users, roles), each starting with `version: 1`, with a header
 * comment and a comment before every group, every 100th item, every user and every role.
 * Returns file name -> text. Written by blockYaml, in the `yaml` package's own block style but
 * without its stringify, which was most of the time of generating the ten-times organization;
 * test/engine/bench-performance.test.ts checks it against the `yaml` package both ways.
 */
export function yamlDirectory(config) {
  const section = (name, header, entries, commentFor) => {
    const out = [`# ${header}`, 'version: 1', `${name}:`];
    entries.forEach((entry, index) => {
      const comment = commentFor(entry, index);
      if (comment) out.push(`  # ${comment}`);
      out.push(`  - ${blockYaml(entry, 4)}`);
    });
    return `${out.join('\n')}\n`;
  };
  const portal = `# The portal this organization lives on.\nversion: 1\nportal:\n${Object.entries(config.portal)
    .map(([key, value], index) => `  ${key}: ${scalarYaml(value)}${index === 0 ? '   # the REST root; --portal overrides it' : ''}`)
    .join('\n')}\n`;
  return {
    'portal.yaml': portal,
    'groups.yaml': section('groups', 'Content category schemas of every group (E1).', config.groups, (_group, index) => `Group ${index + 1}: five trees, 200 categories.`),
    'items.yaml': section('items', 'Item status (authoritative / deprecated) of every item.', config.items, (_item, index) => (index % 100 === 0 ? `Items ${index + 1} to ${index + 100}.` : undefined)),
    'users.yaml': section('users', 'User tasks.', config.users, (user) => `Tasks of ${user.username}.`),
    'roles.yaml': section('roles', 'Custom roles.', config.roles, (role) => `Role ${role.name}.`),
  };
}

/** Strings YAML 1.2 reads as a number, a boolean or null: these are quoted. */
const notAString = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|true|True|TRUE|false|False|FALSE|null|Null|NULL|~)$/;
/** Plain scalars written unquoted: letters, digits and a few safe punctuation marks (no `: `), no leading or trailing space. */
const plainText = /^[A-Za-z0-9_](?:[A-Za-z0-9_ .,:()/-]*[A-Za-z0-9_.)/-])?$/;

function scalarYaml(value) {
  if (typeof value !== 'string') return JSON.stringify(value);
  return plainText.test(value) && !notAString.test(value) && !value.includes(': ') ? value : JSON.stringify(value);
}

/**
 * A JSON value in block style, as the `yaml` package writes it: `indent` is the column of the
 * value's first line (a list item's or a key's value); nested lists are indented under their key.
 */
function blockYaml(value, indent) {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return value.map((item, index) => `${index === 0 ? '' : pad}- ${blockYaml(item, indent + 2)}`).join('\n');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return entries
      .map(([key, item], index) => {
        const head = `${index === 0 ? '' : pad}${scalarYaml(key)}:`;
        if (Array.isArray(item) && item.length > 0) return `${head}\n${pad}  ${blockYaml(item, indent + 2)}`;
        if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length > 0) return `${head}\n${pad}  ${blockYaml(item, indent + 2)}`;
        return `${head} ${blockYaml(item, indent + 2)}`;
      })
      .join('\n');
  }
  return scalarYaml(value);
}
