import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CORS_ALLOWED_HEADERS } from '../../src/config/config.js';
import { type Stack, startStack } from '../support/stack.js';

const CLIENT_HEADERS = [
  'apollographql-client-name',
  'apollographql-client-version',
  'apollo-require-preflight',
  'traceparent',
  'tracestate',
  'baggage',
  'x-request-id',
  'if-none-match',
];

describe('CORS and CSRF for browser clients', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      config: { corsAllowedHeaders: [...DEFAULT_CORS_ALLOWED_HEADERS, 'x-team-header'] },
    });
  });
  afterAll(() => stack.close());

  const preflight = (headers: string[]) =>
    fetch(stack.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': headers.join(','),
      },
    });

  it('allows the headers mainstream clients send, and configured extras', async () => {
    const response = await preflight([...CLIENT_HEADERS, 'authorization', 'x-team-header']);
    expect(response.status).toBeLessThan(300);
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
    for (const header of [...CLIENT_HEADERS, 'authorization', 'x-team-header']) {
      expect(allowed).toContain(header);
    }
    expect(allowed).not.toContain('x-unlisted');
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });

  const get = (params: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.url}?query=${encodeURIComponent('{ user { id } }')}${params}`, { headers });

  it('runs a GET carrying Authorization without a CSRF header (browsers preflight it)', async () => {
    const response = await get('', { authorization: `Bearer ${stack.token}` });
    expect(response.status).toBe(200);
  });

  it('still refuses a simple request without Authorization (token in the URL)', async () => {
    const response = await get(`&access_token=${stack.token}`);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Required CSRF header');
    const form = await fetch(`${stack.url}?access_token=${stack.token}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: '{ user { id } }' }),
    });
    expect(form.status).toBe(403);
  });
});
