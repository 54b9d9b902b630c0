/**
 * `npm-shrinkwrap.json` for the packed package (`npm pack`, `npm publish`): the dependency tree of
 * `package-lock.json`, cut to what the published package installs, so that `npx
 * plans-gateway-mcp` gets the versions this checkout is tested with (the lock's overrides
 * included: `@whatwg-node/promise-helpers` 1.x, whose 2.x wants a newer Node) instead of the
 * newest versions the ranges allow. npm documents the shrinkwrap as the lock a published
 * command-line tool may carry (docs.npmjs.com, "npm-shrinkwrap.json"); the repository keeps only
 * `package-lock.json`: `prepack` writes the file and `postpack` removes it (`--remove`).
 *
 * What is kept of the lock: the entries reachable from the root's `dependencies` (and the
 * optional and peer dependencies along the way), found as Node finds them (the nearest
 * `node_modules` up from the dependent). Left out: devDependencies' trees, the workspaces
 * (`packages/*`, `examples/web`) and their links. The bundled workspace packages
 * (`bundleDependencies`) are written as `inBundle` entries: they come inside the tarball.
 *
 * npm follows a dependency's shrinkwrap only when the registry's metadata of that version says
 * `_hasShrinkwrap: true`, which the registry sets on publish (arborist's Node reads it from the
 * manifest; a package.json's own `_` fields are dropped when read): installed from the registry,
 * the locked tree is used; installed from the tarball file or a URL, npm resolves the ranges.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  inBundle?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bundleDependencies?: string[];
  [key: string]: unknown;
}

interface Lock {
  name: string;
  version: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHRINKWRAP = join(ROOT, 'npm-shrinkwrap.json');

/** The shrinkwrap of `lock`: what installing the packed package needs, as locked. */
export function shrinkwrapOf(lock: Lock): Lock {
  const packages = lock.packages;
  const root = packages[''];
  if (!root) throw new Error('package-lock.json has no root entry ("")');
  const bundled = new Set(root.bundleDependencies ?? []);
  /** Location → reached through required edges only (false: only through optional ones). */
  const kept = new Map<string, boolean>();

  // The lock entry a dependency of the package at `from` resolves to: the nearest
  // `node_modules/<name>` up from it; a link's target stands in for it.
  const resolve = (from: string, name: string): string | undefined => {
    let at = from;
    for (;;) {
      const location = at === '' ? `node_modules/${name}` : `${at}/node_modules/${name}`;
      if (packages[location]) return location;
      if (at === '') return undefined;
      const parent = at.lastIndexOf('/node_modules/');
      at =
        parent === -1
          ? at.startsWith('node_modules/')
            ? ''
            : posix.dirname(at)
          : at.slice(0, parent);
      if (at === '.') at = '';
    }
  };

  const visit = (location: string, required: boolean) => {
    const seen = kept.get(location);
    if (seen === true || (seen === false && !required)) return;
    kept.set(location, required);
    const entry = packages[location];
    if (!entry) return;
    // A workspace link: its dependencies resolve from the workspace's folder.
    const from = entry.link && entry.resolved ? entry.resolved : location;
    const own = packages[from] ?? entry;
    const edges: [string, boolean][] = [
      ...Object.keys(own.dependencies ?? {}).map((n): [string, boolean] => [n, required]),
      ...Object.keys(own.optionalDependencies ?? {}).map((n): [string, boolean] => [n, false]),
      ...Object.keys(own.peerDependencies ?? {}).map((n): [string, boolean] => [
        n,
        required && !own.peerDependenciesMeta?.[n]?.optional,
      ]),
    ];
    for (const [name, needed] of edges) {
      const found = resolve(from, name);
      if (found) visit(found, needed);
      else if (needed) throw new Error(`${location || 'the root'}: ${name} is not in the lock`);
    }
  };
  for (const name of Object.keys(root.dependencies ?? {})) {
    const found = resolve('', name);
    if (!found) throw new Error(`${name} (a dependency) is not in package-lock.json`);
    visit(found, true);
  }
  for (const name of Object.keys(root.optionalDependencies ?? {})) {
    const found = resolve('', name);
    if (found) visit(found, false);
  }

  const out: Record<string, LockEntry> = {};
  const {
    devDependencies: _dev,
    workspaces: _workspaces,
    ...published
  } = root as LockEntry & { devDependencies?: unknown; workspaces?: unknown };
  out[''] = published;
  for (const [location, required] of [...kept].sort(([a], [b]) => a.localeCompare(b))) {
    const entry = packages[location];
    if (!entry) continue;
    const name = location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (entry.link) {
      // Only the bundled workspace packages may be links: they travel inside the tarball.
      if (!bundled.has(name) || !entry.resolved)
        throw new Error(`${location}: a link to ${entry.resolved} cannot be published`);
      const target = packages[entry.resolved] ?? {};
      const {
        devDependencies: _d,
        name: _n,
        ...rest
      } = target as LockEntry & {
        devDependencies?: unknown;
      };
      out[location] = { ...rest, inBundle: true };
      continue;
    }
    if (!location.startsWith('node_modules/'))
      throw new Error(`${location}: a dependency inside a workspace cannot be published`);
    const { dev: _d, devOptional: _o, peer: _p, optional: _opt, ...rest } = entry;
    out[location] = required ? rest : { ...rest, optional: true };
  }
  return {
    name: lock.name,
    version: lock.version,
    lockfileVersion: lock.lockfileVersion,
    requires: true,
    packages: out,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--remove')) {
    rmSync(SHRINKWRAP, { force: true });
  } else {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
    writeFileSync(SHRINKWRAP, `${JSON.stringify(shrinkwrapOf(lock), null, 2)}\n`);
  }
}
