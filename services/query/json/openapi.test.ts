// The OpenAPI description is generated from the route schemas and covers the JSON routes only.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../test/support/fake-ports.js';

let app: FastifyInstance;
beforeAll(async () => {
  // The whole app, so that the SOAP and health routes are there to be left out.
  app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'https://partners.example.com',
    lookups: new FakeLookups(),
    authenticator: new FakeAuthenticator(ACCOUNTS),
  });
});
afterAll(() => app.close());

interface Spec {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  security: unknown;
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, { parameters: { name: string; in: string; required: boolean; schema: unknown }[]; responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>; security: unknown }>>;
}

it('is served without credentials, as OpenAPI 3 version 1.0.0 with Basic auth', async () => {
  const res = await app.inject({ url: '/api/partners/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  const spec = res.json<Spec>();
  expect(spec.openapi).toMatch(/^3\./);
  expect(spec.info.version).toBe('1.0.0');
  expect(spec.servers).toEqual([{ url: 'https://partners.example.com' }]);
  expect(spec.components.securitySchemes).toEqual({ basicAuth: { type: 'http', scheme: 'basic' } });
  expect(spec.security).toEqual([{ basicAuth: [] }]);
});

it('holds both JSON routes and nothing else', async () => {
  const spec = (await app.inject({ url: '/api/partners/v1/openapi.json' })).json<Spec>();
  expect(Object.keys(spec.paths).sort()).toEqual(['/api/partners/v1/orders/shipments', '/api/partners/v1/orders/status']);
  for (const path of Object.values(spec.paths)) expect(Object.keys(path)).toEqual(['get']);

  const status = spec.paths['/api/partners/v1/orders/status']!['get']!;
  expect(status.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
    ['queryType', 'query', true],
    ['referenceNumber', 'query', false],
    ['statusTimeStamp', 'query', false],
  ]);
  expect(status.parameters[2]!.schema).toEqual({ type: 'string' });
  expect(Object.keys(status.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500', '503']);
  expect(status.responses['429']!.headers).toHaveProperty('Retry-After');
  expect(status.responses['401']!.headers).toHaveProperty('WWW-Authenticate');

  const shipments = spec.paths['/api/partners/v1/orders/shipments']!['get']!;
  expect(shipments.parameters.map((p) => p.name)).toEqual(['queryType', 'referenceNumber', 'shipmentDateTimeStamp']);
  // The same schema that serializes the answer: addresses without address3/4.
  const body = JSON.stringify(shipments.responses['200']!.content!['application/json']!.schema);
  expect(body).toContain('"postalCode"');
  expect(body).not.toContain('address3');
  expect(body).not.toContain('shipmentDestinationType');
});
