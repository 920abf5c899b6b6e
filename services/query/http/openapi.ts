// What the OpenAPI 3.1 descriptions of the JSON routes (v1 and v2) share: the version, Basic auth,
// the rate-limit header fields of every answer, and the enums of query parameters that the routes
// check themselves. Each plugin registers @fastify/swagger in its own scope, so a description holds
// that version's routes only.
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { RATE_LIMIT_POLICY_NAME } from '../rate-limit/rate-limit-headers.js';

export const OPENAPI_VERSION = '3.1.0';

export const basicAuth = [{ basicAuth: [] }];

/** The options of @fastify/swagger for one version's description. */
export function openapiOptions(info: { title: string; version: string; description: string }, publicBaseUrl: string | undefined): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: OPENAPI_VERSION,
      info,
      ...(publicBaseUrl ? { servers: [{ url: publicBaseUrl }] } : {}),
      components: { securitySchemes: { basicAuth: { type: 'http', scheme: 'basic' } } },
      security: basicAuth,
    },
  };
}

/** The header fields every partner answer may carry (rate-limit/rate-limit-headers.ts). */
export const rateLimitHeaders = {
  'RateLimit-Policy': {
    type: 'string',
    description: `The request quota per credential, SOAP and JSON together (IETF draft-ietf-httpapi-ratelimit-headers): "${RATE_LIMIT_POLICY_NAME}";q=<requests>;w=<window in seconds>`,
  },
  RateLimit: {
    type: 'string',
    description: `Once the credential is counted: "${RATE_LIMIT_POLICY_NAME}";r=<requests left in the window>;t=<seconds until it ends>`,
  },
} as const;

export const retryAfterHeader = { 'Retry-After': { type: 'integer', description: 'Seconds until a request will be accepted again' } } as const;

type Schema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };

/**
 * A route's `swaggerTransform`: its description lists these values of its query parameters as
 * enums. The route schema leaves them out on purpose: the route checks the values itself, in the
 * order and with the answers its interface specifies (an unknown 1.0.0 queryType answers an empty
 * list; 2.0.0 answers 300 or 125 after the 120 and 110 checks), which schema validation would
 * pre-empt.
 */
export function documentedEnums(enums: Record<string, readonly (string | number)[]>) {
  return ({ schema, url }: { schema: unknown; url: string }) => {
    const route = schema as { querystring?: Schema } & Record<string, unknown>;
    const properties = route.querystring?.properties ?? {};
    const documented = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, enums[name] ? { ...property, enum: [...enums[name]] } : property]));
    return { schema: { ...route, querystring: { ...route.querystring, properties: documented } }, url };
  };
}
