/**
 * No Docker engine runs here, so the image is checked by its steps: the Dockerfile builds and
 * starts with the commands the other CLI suites run, as a non-root user with a health check, the
 * workspace packages are installed from their manifests and shipped as built, and the production
 * install (`npm ci --omit=dev`) holds every package the compiled code imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerfileStages as stages } from './support/image.js';
import { ROOT } from './support/process.js';

interface Manifest {
  name: string;
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  workspaces?: string[];
}
const readManifest = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
const manifest = readManifest('.');
const allWorkspaces = manifest.workspaces ?? [];
/**
 * The workspaces the gateway runs (its dependencies): in the image. The others are for client
 * apps (the client kit, the example web app) and stay out; `npm ci` skips workspaces whose
 * folders are absent.
 */
const workspaces = allWorkspaces.filter(
  (dir) => readManifest(dir).name in (manifest.dependencies ?? {}),
);

describe('Dockerfile', () => {
  it('builds with npm ci and npm run build in a stage of its own', () => {
    const [build, runtime] = stages();
    expect(stages()).toHaveLength(2);
    expect(build).toContain('RUN npm ci');
    expect(build).toContain('RUN npm run build');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime?.some((line) => line.startsWith('RUN npm ci --omit=dev'))).toBe(true);
  });

  it('installs every workspace package from its manifest and ships it as built', () => {
    const [build = [], runtime = []] = stages();
    expect(workspaces).toEqual(['packages/rest-contract', 'packages/sandbox']);
    expect(allWorkspaces.filter((dir) => !workspaces.includes(dir))).toEqual([
      'packages/client-kit',
      'examples/web',
    ]);
    for (const stage of [build, runtime])
      expect(stage.filter((line) => /client-kit|examples\/web/.test(line))).toEqual([]);
    for (const stage of [build, runtime]) {
      const install = stage.findIndex((line) => line.startsWith('RUN npm ci'));
      for (const workspace of workspaces) {
        const copied = stage.indexOf(`COPY ${workspace}/package.json ./${workspace}/`);
        expect(copied, `${workspace}/package.json before npm ci`).toBeGreaterThan(-1);
        expect(copied).toBeLessThan(install);
      }
    }
    const built = build.indexOf('RUN npm run build');
    for (const workspace of workspaces) {
      const sources = build.indexOf(`COPY ${workspace}/src ./${workspace}/src`);
      expect(sources, `${workspace}/src before the build`).toBeGreaterThan(-1);
      expect(sources).toBeLessThan(built);
      expect(runtime).toContain(`COPY --from=build /app/${workspace}/dist ./${workspace}/dist`);
    }
  });

  it('runs node dist/cli.js (npm run start:prod) as a non-root user with a health check', () => {
    const runtime = stages()[1] ?? [];
    expect(runtime).toContain('CMD ["node", "dist/cli.js"]');
    expect(manifest.scripts['start:prod']).toBe('exec node dist/cli.js');
    const user = runtime.find((line) => line.startsWith('USER '));
    expect(user).toBeDefined();
    expect(user).not.toMatch(/USER (root|0)\b/);
    const health = runtime.find((line) => line.startsWith('HEALTHCHECK '));
    expect(health).toContain('/health');
    expect(runtime).toContain('ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000');
  });

  it('gives the non-root user a data directory for the webhooks file (DATA_DIR ./data)', () => {
    const runtime = stages()[1] ?? [];
    const owned = runtime.indexOf('RUN mkdir -p data && chown node:node data');
    expect(owned).toBeGreaterThan(-1);
    expect(owned).toBeLessThan(runtime.findIndex((line) => line.startsWith('USER ')));
    expect(runtime).toContain('VOLUME /app/data');
  });

  it.each(['.', ...workspaces])(
    'ships every package %s imports at run time as a production dependency',
    (dir) => {
      const imported = new Set<string>();
      let files = 0;
      const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const path = join(dir, entry.name);
          if (entry.isDirectory()) walk(path);
          else if (entry.name.endsWith('.ts')) {
            files += 1;
            const text = readFileSync(path, 'utf8');
            const statics = text.matchAll(
              /^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+'([^']+)'/gms,
            );
            const dynamics = text.matchAll(/\bimport\('([^']+)'\)/g);
            for (const [, specifier] of [...statics, ...dynamics])
              if (specifier) imported.add(specifier);
          }
        }
      };
      walk(join(ROOT, dir, 'src'));
      expect(files).toBeGreaterThan(5);
      const packages = [...imported]
        .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
        .map((s) =>
          s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] as string),
        );
      const dependencies = readManifest(dir).dependencies ?? {};
      const missing = [...new Set(packages)].filter((name) => !(name in dependencies));
      expect(missing).toEqual([]);
      expect(dependencies).not.toHaveProperty('tsx');
    },
  );
});
