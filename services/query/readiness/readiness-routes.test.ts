import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { readinessRoutes } from './readiness-routes.js';

async function appWith(check: () => Promise<void>, timeoutMs?: number) {
  const app = Fastify();
  await app.register(readinessRoutes, { check, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  return app;
}

describe('GET /readyz', () => {
  it('answers ready when the check passes', async () => {
    const response = await (await appWith(async () => undefined)).inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready' });
  });

  it('answers 503 without details when the check fails', async () => {
    const app = await appWith(async () => {
      throw new Error('active read-model version not known; mongodb://u:hunter2@db');
    });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toBe('{"status":"not ready"}');
  });

  it('answers 503 within its deadline when the check hangs', async () => {
    const app = await appWith(() => new Promise(() => undefined), 200);
    const started = Date.now();
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
