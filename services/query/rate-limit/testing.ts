// The whole app over in-memory ports, with the limits under test.
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../app.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../soap/testing.js';
import type { Authenticator } from '../../domain/credentials/credential.js';
import type { RequestLimits } from './request-limits.js';

export function appWithLimits(limits: RequestLimits, trustedProxyHops = 0, authenticator: Authenticator = new FakeAuthenticator(ACCOUNTS)): Promise<FastifyInstance> {
  return buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups: new FakeLookups(),
    authenticator,
    limits,
    trustedProxyHops,
  });
}
