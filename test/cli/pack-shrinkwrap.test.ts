/**
 * The shrinkwrap `npm pack` ships (scripts/pack-shrinkwrap.ts): the lock's tree cut to what the
 * published package installs. The installed tarball itself is checked in mcp-package.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { shrinkwrapOf } from '../../scripts/pack-shrinkwrap.js';
import { ROOT } from './support/process.js';

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

it('keeps the locked versions of what the package installs, and nothing of the checkout', () => {
  const { packages } = shrinkwrapOf(lock);
  // Every dependency, at the version the lock has.
  for (const name of Object.keys(manifest.dependencies))
    expect(packages[`node_modules/${name}`]?.version, name).toBe(
      lock.packages[`node_modules/${name}`].version ??
        lock.packages[`packages/${name.split('/')[1]}`]?.version,
    );
  // The override that keeps Node 20: promise-helpers 1.x, not the 2.x the ranges allow.
  expect(packages['node_modules/@whatwg-node/promise-helpers']?.version).toBe('1.3.2');
  // No devDependencies (unless a dependency needs them too), no workspaces, no links.
  for (const name of ['vitest', '@biomejs/biome', 'tsx', 'typescript', 'knip'])
    expect(packages[`node_modules/${name}`], name).toBeUndefined();
  const locations = Object.keys(packages);
  expect(locations.filter((l) => l !== '' && !l.startsWith('node_modules/'))).toEqual([]);
  expect(Object.values(packages).filter((entry) => entry.link || entry.dev)).toEqual([]);
  expect(packages['']).not.toHaveProperty('devDependencies');
  // The bundled workspace packages come inside the tarball.
  expect(packages['node_modules/@plans-gateway/sandbox']).toMatchObject({
    version: '0.1.0',
    inBundle: true,
  });
  expect(packages['node_modules/@plans-gateway/rest-contract']).toMatchObject({ inBundle: true });
  expect(packages['node_modules/@plans-gateway/client-kit']).toBeUndefined();
});
