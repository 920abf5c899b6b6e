import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../plumbing/logging/logger.js';
import type { QueryMetrics } from '../plumbing/metrics/query-metrics.js';
import { capConnectionsPerAddress } from './http/connections-per-address.js';
import { drainOversizedBodies } from './http/oversized-bodies.js';
import { trackRequestWork } from './http/request-work.js';
import { DEFAULT_SERVER_LIMITS, serverLimitOptions, type ServerLimits } from './http/server-limits.js';
import { LoggableUrlLogController, withLoggableRequests } from './protocol/json/url-password.js';
import { partnerJsonApi } from './versions/1.0.0/json/index.js';
import { MeasuredLookups, MeasuredLookupsV2 } from './measured-lookups.js';
import { queryMetrics } from './http/request-metrics.js';
import type { OrderLookups, OrderLookupsV2 } from '../../contracts/lookups.js';
import type { Authenticator } from '../domain/credentials/credential.js';
import { guardLogins, type RequestLimits } from './rate-limit/index.js';
import { rateLimitHeaders } from './rate-limit/rate-limit-headers.js';
import { DEFAULT_LOOKUP_WAIT_MS, DEFAULT_LOOKUPS_IN_FLIGHT, LookupsInFlight } from './rate-limit/lookups-in-flight.js';
import { promoStandardsSoap } from './versions/1.0.0/soap/index.js';
import { partnerJsonApiV2 } from './versions/2.0.0/json/plugin.js';
import { promoStandardsSoapV2 } from './versions/2.0.0/soap/plugin.js';
import { promoStandardsSoapV21 } from './versions/2.1.0/soap/plugin.js';

export interface AppDependencies {
  logger: Logger;
  publicBaseUrl: string;
  lookups: OrderLookups;
  /**
   * The 2.0.0 lookups (OSS/OSN 2.0.0 SOAP and the JSON v2 twins); without them those endpoints are
   * not served (404), as in apps built for 1.0.0 alone.
   */
  lookupsV2?: OrderLookupsV2 | undefined;
  authenticator: Authenticator;
  /** Requests per credential and failed logins per address, across SOAP and JSON; closed with the app. */
  limits?: RequestLimits;
  /**
   * Reverse proxies whose X-Forwarded-For is believed (0 or absent: none). The failed-login limit
   * counts per source address, so a forged header must not choose whose address gets blocked.
   */
  trustedProxyHops?: number;
  /** Request, refusal and answer-size metrics (served on the operators' port, not here). */
  metrics?: QueryMetrics;
  /** Timeouts and the connection cap of the port; DEFAULT_SERVER_LIMITS when absent. */
  serverLimits?: Partial<ServerLimits>;
  /** Lookups one credential may have running in this process; more wait their turn. */
  lookupsInFlightPerCredential?: number;
  /** How long a lookup waits for its turn before its request is answered 500; 5 s when absent. */
  lookupWaitMs?: number;
  /** Where a bare date a 2.1.0 partner sends starts (an IANA name); UTC when absent. */
  supplierTimeZone?: string;
  /** Whether a credential has a push subscription (2.1.0's getServiceMethods); none has when absent. */
  pushSubscribed?: (credentialId: string) => Promise<boolean>;
}

/** The query service's partner port as a Fastify instance; routes arrive as encapsulated plugins. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const serverLimits = { ...DEFAULT_SERVER_LIMITS, ...deps.serverLimits };
  const app = Fastify({
    // No log line may show a password sent in a URL query (see protocol/json/url-password.ts).
    loggerInstance: withLoggableRequests(deps.logger) as FastifyBaseLogger,
    logController: new LoggableUrlLogController(),
    trustProxy: (_address: string, hop: number) => hop < (deps.trustedProxyHops ?? 0),
    ...serverLimitOptions(serverLimits),
  });
  app.server.maxConnections = serverLimits.maxConnections;
  if (!deps.trustedProxyHops) capConnectionsPerAddress(app.server, serverLimits.maxConnectionsPerAddress);
  const { limits } = deps;
  if (limits) app.addHook('onClose', () => limits.close());

  drainOversizedBodies(app);
  // Fastify's own 404 repeats the URL, query string (and any password sent in it) included.
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ error: 'Not found' }));
  if (deps.metrics) await app.register(queryMetrics, { metrics: deps.metrics });
  const lookups = deps.metrics ? new MeasuredLookups(deps.lookups, deps.metrics) : deps.lookups;
  // The partner endpoints, SOAP and JSON, share one rate limit and one failed-login limit.
  await app.register(async (partners) => {
    const beforePasswordCheck = limits ? guardLogins(limits) : undefined;
    const admit = limits ? rateLimitHeaders(partners, limits) : undefined;
    const requestWork = trackRequestWork(partners, new LookupsInFlight(deps.lookupsInFlightPerCredential ?? DEFAULT_LOOKUPS_IN_FLIGHT, deps.lookupWaitMs ?? DEFAULT_LOOKUP_WAIT_MS));
    await partners.register(promoStandardsSoap, {
      beforePasswordCheck,
      requestWork,
      publicBaseUrl: deps.publicBaseUrl,
      lookups,
      authenticator: deps.authenticator,
      admit,
    });
    await partners.register(partnerJsonApi, {
      publicBaseUrl: deps.publicBaseUrl,
      lookups,
      authenticator: deps.authenticator,
      admit,
      beforePasswordCheck,
      requestWork,
    });
    if (!deps.lookupsV2) return;
    // The same credentials, limits and lookup slots as 1.0.0 (oss-osn-2.0.0.md §2).
    const { metrics } = deps;
    const v2 = {
      lookups: metrics ? new MeasuredLookupsV2(deps.lookupsV2, metrics) : deps.lookupsV2,
      authenticator: deps.authenticator,
      admit,
      beforePasswordCheck,
      requestWork,
      degraded: metrics ? (field: string) => metrics.v2Degraded.inc({ field }) : undefined,
    };
    await partners.register(promoStandardsSoapV2, { ...v2, publicBaseUrl: deps.publicBaseUrl });
    await partners.register(partnerJsonApiV2, { ...v2, publicBaseUrl: deps.publicBaseUrl });
    // OSN 2.1.0 from the same lookups (docs/design/osn-2.1.0.md §1).
    await partners.register(promoStandardsSoapV21, { ...v2, publicBaseUrl: deps.publicBaseUrl, supplierTimeZone: deps.supplierTimeZone, pushSubscribed: deps.pushSubscribed });
  });
  return app;
}
