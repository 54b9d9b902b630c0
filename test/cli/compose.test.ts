/**
 * compose.yaml and its balancer's configuration, checked by their shape (no Docker engine runs
 * here): every gateway instance's environment, over the image's, is one the gateway accepts and
 * points at the Redis and sandbox services; the sandbox's is one the sandbox accepts; nginx
 * balances over exactly the gateway instances, on the port they listen on, and listens on the
 * port the balancer publishes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseCliOptions } from '../../packages/sandbox/src/cli-options.js';
import { DEFAULT_SHUTDOWN_GRACE_MS, parseSettings } from '../../src/config/settings.js';
import { dockerfileStages, imageEnv } from './support/image.js';
import { ROOT } from './support/process.js';

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: string[] | Record<string, unknown>;
  stop_grace_period?: string;
}

const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as {
  services: Record<string, Service>;
};
const services = compose.services;
const gateways = Object.keys(services).filter((name) => /^gateway-\d+$/.test(name));
const nginx = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8');

/** A value as compose resolves it when the variable is unset: `${NAME:-default}` → default. */
function resolved(environment: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).map(([name, value]) => [
      name,
      value.replace(/\$\{\w+:-([^}]*)\}/g, '$1'),
    ]),
  );
}

function dependsOn(service: Service): string[] {
  const dependencies = service.depends_on ?? [];
  return Array.isArray(dependencies) ? dependencies : Object.keys(dependencies);
}

function seconds(duration: string | undefined): number {
  const match = /^(\d+)s$/.exec(duration ?? '');
  return match ? Number(match[1]) : Number.NaN;
}

describe('compose.yaml', () => {
  it('runs several gateway instances, Redis, the sandbox and a balancer', () => {
    expect(gateways.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(services).sort()).toEqual(
      ['balancer', 'redis', 'sandbox', ...gateways].sort(),
    );
  });

  it('builds the gateways and the sandbox from this Dockerfile, as one image', () => {
    for (const name of [...gateways, 'sandbox']) {
      expect(services[name]?.build, name).toBe('.');
      expect(services[name]?.image, name).toBe(services['gateway-1']?.image);
    }
    // The sandbox runs the build the image ships.
    expect(services.sandbox?.command).toEqual(['node', 'packages/sandbox/dist/cli.js']);
    expect(existsSync(join(ROOT, 'packages/sandbox/src/cli.ts'))).toBe(true);
    expect(dockerfileStages().at(-1)).toContain(
      'COPY --from=build /app/packages/sandbox/dist ./packages/sandbox/dist',
    );
  });

  it.each(gateways)('gives %s settings the gateway accepts, over the image environment', (name) => {
    const service = services[name]!;
    const parsed = parseSettings([], { ...imageEnv(), ...resolved(service.environment) });
    if (parsed.kind !== 'run') throw new Error(`${name}: ${JSON.stringify(parsed)}`);
    const { settings } = parsed;
    expect(settings.host).toBe('0.0.0.0');
    expect(settings.port).toBe(4000);

    const redis = new URL(settings.redisUrl ?? '');
    expect(redis.hostname).toBe('redis');
    expect(redis.port).toBe('6379');
    expect(dependsOn(service)).toContain('redis');

    const upstream = new URL(settings.upstreamUrl ?? '');
    const sandbox = parseCliOptions([], resolved(services.sandbox?.environment));
    if (sandbox.kind !== 'run') throw new Error(`sandbox: ${JSON.stringify(sandbox)}`);
    expect(upstream.hostname).toBe('sandbox');
    expect(Number(upstream.port)).toBe(sandbox.settings.port);
    expect(sandbox.settings.host).toBe('0.0.0.0');
    expect(dependsOn(service)).toContain('sandbox');

    // `docker compose stop` waits past the gateway's drain of operations in flight.
    expect(seconds(service.stop_grace_period) * 1000).toBeGreaterThan(DEFAULT_SHUTDOWN_GRACE_MS);
  });

  it('balances over exactly the gateway instances, on their port, behind the published one', () => {
    const servers = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+);/gm)].map(
      ([, host, port]) => `${host}:${port}`,
    );
    expect(servers.sort()).toEqual(gateways.map((name) => `${name}:4000`).sort());

    const balancer = services.balancer!;
    expect(balancer.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    const listen = /^\s*listen\s+(\d+);/m.exec(nginx)?.[1];
    expect(balancer.ports).toEqual([`4000:${listen}`]);
    expect(dependsOn(balancer).sort()).toEqual([...gateways].sort());
    // WebSocket upgrades and unbuffered event streams pass through.
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/proxy_buffering off;/);
  });
});
