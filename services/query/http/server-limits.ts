// Time and connection limits of the partner port: a client may not hold a connection or the
// server's attention longer than a request needs.
import type { FastifyServerOptions } from 'fastify';
import type { ServerOptions } from 'node:http';

export interface ServerLimits {
  /** From a connection's start (or a kept-alive request's first byte) until its headers are complete. */
  headersTimeoutMs: number;
  /** From a request's first byte until its body is complete: a body sent byte by byte is cut here. */
  requestTimeoutMs: number;
  /** A socket with no traffic in either direction this long is closed (an answer being computed counts as none). */
  idleTimeoutMs: number;
  /** Between kept-alive requests. */
  keepAliveTimeoutMs: number;
  /** Connections open at once; more are refused (closed) at once. */
  maxConnections: number;
  /**
   * Connections one address (an IPv6 /64) may hold at once; more are closed at once. Not applied
   * behind trusted proxies (every connection comes from them): the proxy's own limit holds there.
   */
  maxConnectionsPerAddress: number;
  /** How often Node checks the two timeouts above: they are enforced within this much (Node's default is 30 s). */
  checkIntervalMs: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 5_000,
  // A request is a few KiB at most: a body still arriving after 5 s is held open on purpose.
  requestTimeoutMs: 5_000,
  // Longer than the slowest answer (a full 5,000-purchase-order lookup at the store deadline).
  idleTimeoutMs: 150_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
  // Several partners behind one NAT address, each with its lookups in flight (4 per credential).
  maxConnectionsPerAddress: 32,
  checkIntervalMs: 1_000,
};

/** Fastify's options for them; maxConnections is set on the server once made (fastify has no option). */
export function serverLimitOptions(limits: ServerLimits): Pick<FastifyServerOptions, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout'> & { http: ServerOptions } {
  return {
    // Node swaps headersTimeout and requestTimeout when the first is the larger (and fastify sets
    // requestTimeout after creating the server), so the headers' is never given the larger.
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: { headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs), connectionsCheckingInterval: limits.checkIntervalMs },
  };
}
