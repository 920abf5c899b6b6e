import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { healthRoutes } from './health-routes.js';

async function appWith(check: () => Promise<void>) {
  const app = Fastify();
  await app.register(healthRoutes, { check });
  return app;
}

describe('GET /healthz', () => {
  it('answers ok when the dependencies answer', async () => {
    const app = await appWith(async () => undefined);
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers 503 without details when a dependency is down', async () => {
    const app = await appWith(async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:27017 password=hunter2');
    });
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toBe('{"status":"unavailable"}');
  });
});
