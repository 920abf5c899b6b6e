// What a partner learns of its limit from every answer, SOAP and JSON, 1.0.0 and 2.0.0: the IETF
// RateLimit-Policy and RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11), through
// the real app.
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { basic } from '../../../test/support/json-requests.js';
import { ossV2Request, ORDER_STATUS_V2_URL, post, shipmentRequest, SHIPMENT_URL } from '../../../test/support/soap-requests.js';
import { buildV2TestApp } from '../../../test/support/test-apps.js';
import { createRequestLimits } from './request-limits.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function appWithLimit(requestsPerMinute: number): Promise<FastifyInstance> {
  const { app } = await buildV2TestApp({ limits: createRequestLimits({ requestsPerMinute }) });
  apps.push(app);
  return app;
}

const jsonV1 = (app: FastifyInstance, password = 'secret') =>
  app.inject({ url: '/api/partners/v1/orders/status?queryType=4', headers: { authorization: basic('both', password) } });
const jsonV2 = (app: FastifyInstance) => app.inject({ url: '/api/partners/v2/orders/status?queryType=allOpen', headers: { authorization: basic('both', 'secret') } });
const soapV1 = (app: FastifyInstance) => post(app, SHIPMENT_URL, shipmentRequest());
const soapV2 = (app: FastifyInstance) => post(app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'allOpen' }));

/** r and t of the RateLimit field, or undefined when the answer has none. */
function rateLimit(res: LightMyRequestResponse): { r: number; t: number } | undefined {
  const field = res.headers['ratelimit'];
  if (field === undefined) return undefined;
  const match = /^"requests";r=(\d+);t=(\d+)$/.exec(String(field));
  expect(match, String(field)).not.toBeNull();
  return { r: Number(match![1]), t: Number(match![2]) };
}

describe('RateLimit-Policy and RateLimit', () => {
  it('tell every counted answer, over SOAP and JSON, 1.0.0 and 2.0.0, how many requests are left in the window and when it ends', async () => {
    const app = await appWithLimit(5);
    const answers = [await jsonV1(app), await soapV1(app), await jsonV2(app), await soapV2(app), await jsonV1(app)];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    for (const answer of answers) expect(answer.headers['ratelimit-policy']).toBe('"requests";q=5;w=60');
    expect(answers.map((a) => rateLimit(a)?.r)).toEqual([4, 3, 2, 1, 0]);
    for (const answer of answers) expect(rateLimit(answer)!.t).toBeGreaterThanOrEqual(59);
    for (const answer of answers) expect(rateLimit(answer)!.t).toBeLessThanOrEqual(60);
  });

  it('say r=0 and the seconds of Retry-After on a 429 of the limit, in every interface', async () => {
    const app = await appWithLimit(1);
    expect((await jsonV1(app)).statusCode).toBe(200);
    for (const send of [jsonV1, soapV1, jsonV2, soapV2]) {
      const refused = await send(app);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['ratelimit-policy']).toBe('"requests";q=1;w=60');
      expect(rateLimit(refused)).toEqual({ r: 0, t: Number(refused.headers['retry-after']) });
    }
  });

  it('give the policy alone when no credential was counted (a failed login)', async () => {
    const app = await appWithLimit(5);
    const failed = await jsonV1(app, 'wrong');
    expect(failed.statusCode).toBe(401);
    expect(failed.headers['ratelimit-policy']).toBe('"requests";q=5;w=60');
    expect(rateLimit(failed)).toBeUndefined();
  });
});
