/**
 * What the image is made of, read from the files (no Docker engine runs here): the Dockerfile's
 * stages and the environment its runtime stage sets, and which addresses a process listens on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './process.js';

/** The Dockerfile's instructions by stage, continuation lines joined, comments left out. */
export function dockerfileStages(): string[][] {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('FROM ')) stages.push([]);
    stages.at(-1)?.push(line);
  }
  return stages;
}

/** The environment the runtime stage (the last) sets with `ENV name=value ...`. */
export function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of dockerfileStages().at(-1) ?? []) {
    if (!line.startsWith('ENV ')) continue;
    for (const pair of line.slice(4).split(' ')) {
      const [name, value] = pair.split('=');
      if (name && value !== undefined) env[name] = value;
    }
  }
  return env;
}

/** IPv4 addresses listening on TCP `port` on this machine (from /proc/net/tcp). */
export function listeningAddresses(port: number): string[] {
  const LISTEN = '0A';
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => state === LISTEN && local?.endsWith(`:${hex(port)}`))
    .map(([, local]) => ipv4(local?.split(':')[0] ?? ''));
}

function hex(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0');
}

// Private: /proc/net/tcp writes an IPv4 address as 8 hex digits in host (little-endian) order.
function ipv4(hexAddress: string): string {
  const bytes = hexAddress.match(/../g) ?? [];
  return bytes
    .reverse()
    .map((byte) => Number.parseInt(byte, 16))
    .join('.');
}
