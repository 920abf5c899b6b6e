// The query service's interfaces over in-memory ports (test/support/fake-ports.ts): the SOAP plugin
// alone, the JSON plugin alone, or the whole app with the limits under test.
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { AdmitRequest } from '../../services/query/access/authorize.js';
import type { Authenticator } from '../../services/domain/credentials/credential.js';
import { buildApp, type AppDependencies } from '../../services/query/app.js';
import { partnerJsonApi } from '../../services/query/versions/1.0.0/json/plugin.js';
import type { RequestLimits } from '../../services/query/rate-limit/request-limits.js';
import { promoStandardsSoap } from '../../services/query/versions/1.0.0/soap/plugin.js';
import type { QueryMetrics } from '../../services/plumbing/metrics/query-metrics.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups, FakeLookupsV2 } from './fake-ports.js';

export const BASE_URL = 'https://partners.example.com';

export interface TestApp {
  app: FastifyInstance;
  lookups: FakeLookups;
  authenticator: FakeAuthenticator;
}

/** The SOAP interface alone, its WSDLs' address under BASE_URL; `admit`: the rate limit under test, as the plugin takes it. */
export async function buildSoapTestApp(admit?: AdmitRequest): Promise<TestApp> {
  const lookups = new FakeLookups();
  const authenticator = new FakeAuthenticator(ACCOUNTS);
  const app = Fastify({ logger: false });
  await app.register(promoStandardsSoap, { publicBaseUrl: BASE_URL, lookups, authenticator, admit });
  await app.ready();
  return { app, lookups, authenticator };
}

/** The JSON interface alone; `admit` as for buildSoapTestApp. */
export async function buildJsonTestApp(admit?: AdmitRequest): Promise<TestApp> {
  const lookups = new FakeLookups();
  const authenticator = new FakeAuthenticator(ACCOUNTS);
  const app = Fastify({ logger: false });
  await app.register(partnerJsonApi, { lookups, authenticator, admit });
  await app.ready();
  return { app, lookups, authenticator };
}

/** The whole app (buildApp) with the limits under test, 1.0.0 and 2.0.0. */
export function appWithLimits(limits: RequestLimits, trustedProxyHops = 0, authenticator: Authenticator = new FakeAuthenticator(ACCOUNTS)): Promise<FastifyInstance> {
  return buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups: new FakeLookups(),
    lookupsV2: new FakeLookupsV2(),
    authenticator,
    limits,
    trustedProxyHops,
  });
}

export interface V2TestApp {
  app: FastifyInstance;
  lookups: FakeLookupsV2;
  /** The 1.0.0 lookups of the same app. */
  lookupsV1: FakeLookups;
  authenticator: FakeAuthenticator;
}

/** The whole app (buildApp) with fake 2.0.0 lookups: the 2.0.0 and 2.1.0 SOAP endpoints and the JSON v2 twins, WSDLs under BASE_URL. */
export async function buildV2TestApp(
  options: { limits?: RequestLimits; metrics?: QueryMetrics } & Pick<AppDependencies, 'supplierTimeZone' | 'pushSubscribed'> = {},
): Promise<V2TestApp> {
  const lookups = new FakeLookupsV2();
  const lookupsV1 = new FakeLookups();
  const authenticator = new FakeAuthenticator(ACCOUNTS);
  const app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: BASE_URL,
    lookups: lookupsV1,
    lookupsV2: lookups,
    authenticator,
    ...options,
  });
  await app.ready();
  return { app, lookups, lookupsV1, authenticator };
}
