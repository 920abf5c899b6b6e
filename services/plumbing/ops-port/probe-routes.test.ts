// /healthz (liveness) and /readyz (readiness): the same probe with its own path and words.
import Fastify, { type FastifyPluginAsync } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { healthRoutes } from './health-routes.js';
import { readinessRoutes } from './readiness-routes.js';

type ProbePlugin = FastifyPluginAsync<{ check(): Promise<void>; timeoutMs?: number }>;

describe.each([
  { plugin: healthRoutes as ProbePlugin, path: '/healthz', up: 'ok', down: 'unavailable' },
  { plugin: readinessRoutes as ProbePlugin, path: '/readyz', up: 'ready', down: 'not ready' },
])('GET $path', ({ plugin, path, up, down }) => {
  async function appWith(check: () => Promise<void>, timeoutMs?: number) {
    const app = Fastify();
    await app.register(plugin, { check, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    return app;
  }

  it(`answers ${up} when the check passes`, async () => {
    const response = await (await appWith(async () => undefined)).inject({ method: 'GET', url: path });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: up });
  });

  it('answers 503 without details when the check fails', async () => {
    const app = await appWith(async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:27017; mongodb://u:hunter2@db');
    });
    const response = await app.inject({ method: 'GET', url: path });
    expect(response.statusCode).toBe(503);
    expect(response.body).toBe(JSON.stringify({ status: down }));
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers 503 at its deadline when the check hangs', async () => {
    const app = await appWith(() => new Promise(() => undefined), 200);
    await app.ready();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answered = false;
    const answer = app.inject({ method: 'GET', url: path }).then((response) => ((answered = true), response));
    await vi.advanceTimersByTimeAsync(199);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(answered).toBe(true);
    expect((await answer).statusCode).toBe(503);
  });
});
