// In-memory ports and request helpers for the JSON tests (no MongoDB involved).
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import type { Credential } from '../../domain/credentials/credential.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../soap/testing.js';
import { partnerJsonApi } from './plugin.js';

export { ACCOUNTS, FakeAuthenticator, FakeLookups };
export const STATUS_URL = '/api/partners/v1/orders/status';
export const SHIPMENTS_URL = '/api/partners/v1/orders/shipments';

export interface JsonTestApp {
  app: FastifyInstance;
  lookups: FakeLookups;
  authenticator: FakeAuthenticator;
}

export async function buildJsonTestApp(beforeLookup?: (credential: Credential) => void | Promise<void>): Promise<JsonTestApp> {
  const lookups = new FakeLookups();
  const authenticator = new FakeAuthenticator(ACCOUNTS);
  const app = Fastify({ logger: false });
  await app.register(partnerJsonApi, { lookups, authenticator, beforeLookup });
  await app.ready();
  return { app, lookups, authenticator };
}

export const basic = (id: string, password: string) => `Basic ${Buffer.from(`${id}:${password}`).toString('base64')}`;

/** A GET as partner `both` unless other headers are given. */
export function get(app: FastifyInstance, url: string, headers: Record<string, string> = { authorization: basic('both', 'secret') }): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers });
}
