// Failed logins per source address, for both protocols. Just before a password is checked against
// the store, the request reserves one of its address's failed logins, and gives it back once it
// turned out not to be a failed login. The count is thus taken atomically before the check:
// parallel guesses cannot pass the limit, and an address that used up its failures is refused
// (429) before its password is checked, so a guess cannot succeed while blocked. A pair verified
// moments ago (the authenticator's cache) reserves nothing: a partner's polls are no guesses, and
// a stranger's failures from the same NAT address do not lock it out while it keeps polling.
// Failures are told from the errors the routes throw, which their own error handler answers.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestLimits } from './request-limits.js';

interface Reservation {
  release: () => Promise<void>;
  failed: boolean;
}

/** Installs the hooks that settle reservations; returns what reserves one for a request. */
export function guardLogins(
  app: FastifyInstance,
  limits: Pick<RequestLimits, 'reserveLogin'>,
  isLoginFailure: (error: Error) => boolean,
): (request: FastifyRequest) => Promise<void> {
  const reservations = new WeakMap<FastifyRequest, Reservation>();
  app.addHook('onError', async (request, _reply, error) => {
    const reservation = reservations.get(request);
    if (reservation && isLoginFailure(error)) reservation.failed = true;
  });
  const settle = async (request: FastifyRequest) => {
    const reservation = reservations.get(request);
    if (!reservation || reservation.failed) return;
    reservations.delete(request);
    try {
      await reservation.release();
    } catch (failure) {
      // The request was answered; only the address's count stays one too high until its window ends.
      request.log.warn({ err: failure }, 'login reservation not given back');
    }
  };
  app.addHook('onResponse', settle);
  app.addHook('onRequestAbort', settle);
  return async (request) => {
    if (reservations.has(request)) return;
    reservations.set(request, { release: await limits.reserveLogin(request.ip), failed: false });
  };
}
