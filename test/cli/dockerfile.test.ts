/**
 * No Docker engine runs here, so the image is checked by its steps: the Dockerfile builds and
 * starts with the commands the other CLI suites run, as a non-root user with a health check, and
 * the production install (`npm ci --omit=dev`) holds every package the compiled code imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/process.js';

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

function stages(): string[][] {
  const lines = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '' && !line.startsWith('#'));
  const result: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('FROM ')) result.push([]);
    result.at(-1)?.push(line);
  }
  return result;
}

describe('Dockerfile', () => {
  it('builds with npm ci and npm run build in a stage of its own', () => {
    const [build, runtime] = stages();
    expect(stages()).toHaveLength(2);
    expect(build).toContain('RUN npm ci');
    expect(build).toContain('RUN npm run build');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime?.some((line) => line.startsWith('RUN npm ci --omit=dev'))).toBe(true);
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
    expect(runtime).toContain('ENV NODE_ENV=production PORT=4000');
  });

  it('ships every package the gateway imports at run time as a production dependency', () => {
    const imported = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
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
    walk(join(ROOT, 'src'));
    const packages = [...imported]
      .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
      .map((s) =>
        s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] as string),
      );
    expect(packages.length).toBeGreaterThan(5);
    const missing = [...new Set(packages)].filter((name) => !(name in manifest.dependencies));
    expect(missing).toEqual([]);
    expect(manifest.dependencies).not.toHaveProperty('tsx');
  });
});
