/** CORS: the interface lets browsers call it directly, so preflights pass and answers carry the allow headers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, TOKEN } from './support/sandbox.js';

let box: TestSandbox;

beforeAll(async () => {
  box = await startTestSandbox({ transactions: 10 });
});

afterAll(async () => {
  await box.close();
});

describe('CORS', () => {
  it('answers a preflight for an authorized write from another origin', async () => {
    const response = await fetch(`${box.sandbox.url}/plans/${box.planId}/transactions`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://budget-app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    const origin = response.headers.get('access-control-allow-origin');
    expect(origin === '*' || origin === 'https://budget-app.example').toBe(true);
    expect(response.headers.get('access-control-allow-methods')?.toUpperCase()).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'authorization',
    );
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'content-type',
    );
  });

  it('lets the browser read answers and errors', async () => {
    for (const token of [TOKEN, 'wrong-token']) {
      const response = await fetch(`${box.sandbox.url}/user`, {
        headers: { Origin: 'https://budget-app.example', Authorization: `Bearer ${token}` },
      });
      const origin = response.headers.get('access-control-allow-origin');
      expect(origin === '*' || origin === 'https://budget-app.example', `${response.status}`).toBe(
        true,
      );
    }
  });
});
