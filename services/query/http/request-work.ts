// The work a partner request starts, bound to the request: its store reads are cancelled (an
// AbortSignal) when the client goes away or once it has been answered (a 500 at the store deadline
// included), and the credential's lookup slot is held until then.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Credential } from '../../domain/credentials/credential.js';
import type { LookupsInFlight } from '../rate-limit/lookups-in-flight.js';

/** What a partner request's lookup is bound to (made by trackRequestWork below). */
export interface RequestWork {
  /** Aborted when the client goes away or the request is answered: its store work is cancelled then. */
  signal: AbortSignal;
  /** Waits for one of the credential's lookup slots, held until then (once: a second call holds the same slot). */
  admitLookup(credential: Credential): Promise<void>;
}

interface Bound {
  controller: AbortController;
  leave?: () => void;
}

/**
 * Hooks on `app` (the partner routes' scope), and the work of each of its requests. A lookup waits
 * for its credential's slot at most `inFlight`'s wait (then its request is answered 500, as a store
 * that does not answer in time is).
 */
export function trackRequestWork(app: FastifyInstance, inFlight: LookupsInFlight): (request: FastifyRequest) => RequestWork {
  const bound = new WeakMap<FastifyRequest, Bound>();
  const end = (request: FastifyRequest, reason: string) => {
    const work = bound.get(request);
    if (!work) return;
    bound.delete(request);
    work.leave?.();
    work.controller.abort(new Error(reason));
  };
  // The work is bound when the request arrives, not when its lookup first asks: a client that went
  // away during the password check (no answer follows, so no onResponse either) must find its work
  // ended, or its lookup would take a slot that nothing gives back.
  // The client went away: the connection closed before the answer was written. (Not onRequestAbort:
  // Node closes a request once its body is read, so a POST - every SOAP request - was never seen
  // to abort, and its lookup ran on, holding its slot, until it answered.)
  app.addHook('onRequest', async (request, reply) => {
    bound.set(request, { controller: new AbortController() });
    if (request.raw.socket?.destroyed) return end(request, 'the client went away');
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) end(request, 'the client went away');
    });
  });
  app.addHook('onResponse', async (request) => end(request, 'the request was answered'));
  const ended: Bound = { controller: new AbortController() };
  ended.controller.abort(new Error('the request has ended'));
  return (request) => {
    // Unbound: the request has ended (or is not one of the partner routes'), so no lookup starts.
    const current = bound.get(request) ?? ended;
    return {
      signal: current.controller.signal,
      async admitLookup(credential) {
        if (current.leave) return; // one slot a request, however many lookups it makes
        const leave = await inFlight.enter(credential.id, current.controller.signal);
        // Ended while it waited (the hooks ran already): the slot goes back at once.
        if (bound.get(request) === current) current.leave = leave;
        else leave();
      },
    };
  };
}
