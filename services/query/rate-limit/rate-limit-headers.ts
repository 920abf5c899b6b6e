// The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11) on partner answers:
// RateLimit-Policy on every answer (the per-credential request quota and its window), RateLimit
// on every answer whose credential was counted (requests left in the window and seconds until it
// ends; r=0 on the 429 the limit refused). A 429 of the failed-login limit carries no RateLimit:
// no credential was counted. Structured Fields (RFC 9651): a String item with Integer parameters.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Credential } from '../../domain/credentials/credential.js';
import { RateLimitedError } from './rate-limited-error.js';
import type { Quota, RequestLimits } from './request-limits.js';

/** The name both fields give the one policy: requests per credential, SOAP and JSON together. */
export const RATE_LIMIT_POLICY_NAME = 'requests';

export const rateLimitPolicyField = ({ limit, windowSeconds }: RequestLimits['requestPolicy']) =>
  `"${RATE_LIMIT_POLICY_NAME}";q=${limit};w=${windowSeconds}`;

export const rateLimitField = ({ remaining, resetSeconds }: Quota) => `"${RATE_LIMIT_POLICY_NAME}";r=${remaining};t=${resetSeconds}`;

/**
 * Adds both fields to every answer of `app`'s routes (hooks of a scope reach the plugins registered
 * in it afterwards) and returns the admission the routes count their credential with: per request,
 * it counts the credential (throws RateLimitedError above the limit) and keeps the count for the
 * answer's headers: the access step's admission (../access/authorize.ts, AdmitRequest).
 */
export function rateLimitHeaders(app: FastifyInstance, limits: RequestLimits): (request: FastifyRequest) => (credential: Credential) => Promise<void> {
  const counted = new WeakMap<FastifyRequest, Quota>();
  const policy = rateLimitPolicyField(limits.requestPolicy);
  app.addHook('onSend', async (request, reply) => {
    reply.header('ratelimit-policy', policy);
    const quota = counted.get(request);
    if (quota) reply.header('ratelimit', rateLimitField(quota));
  });
  return (request) => async (credential) => {
    try {
      counted.set(request, await limits.admit(credential));
    } catch (error) {
      if (error instanceof RateLimitedError) counted.set(request, { remaining: 0, resetSeconds: error.retryAfterSeconds });
      throw error;
    }
  };
}
