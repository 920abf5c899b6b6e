// Failed logins per source address, for both protocols: a request carrying credentials from an
// address that used up its failures is refused (429) before its password is checked, so a guess
// cannot succeed while blocked. Failures are counted from the errors the routes throw, which the
// route's own error handler then answers; either protocol's routes sit below these hooks.
//
// The check happens before and the count after verification: a burst of parallel guesses can pass
// the limit by its concurrency once, then the address is blocked until the window ends.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestLimits } from './request-limits.js';

// SOAP operations are POSTs with credentials in the body; JSON requests carry an Authorization header.
function carriesCredentials(request: FastifyRequest): boolean {
  return request.method === 'POST' || request.headers.authorization !== undefined;
}

export function guardLogins(
  app: FastifyInstance,
  limits: Pick<RequestLimits, 'checkAddress' | 'recordLoginFailure'>,
  isLoginFailure: (error: Error) => boolean,
): void {
  app.addHook('onRequest', async (request) => {
    if (carriesCredentials(request)) await limits.checkAddress(request.ip);
  });
  app.addHook('onError', async (request, _reply, error) => {
    if (!isLoginFailure(error)) return;
    try {
      await limits.recordLoginFailure(request.ip);
    } catch (failure) {
      // The request is answered 401 anyway; only the count is missing.
      request.log.warn({ err: failure }, 'failed login not counted');
    }
  });
}
