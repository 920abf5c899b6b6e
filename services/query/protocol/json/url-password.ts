// Passwords must never travel in URLs (service.md, Authentication 2). A request whose query string
// carries one is refused (400) before anything else happens, and no log line shows that query:
// Fastify logs the URL before any hook runs, so the request serializer and the 404 log line are
// replaced here for the whole app.
import { LogController, type FastifyRequest } from 'fastify';
import { serializeError, type Logger } from '../../../plumbing/logging/logger.js';

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** Whether the URL's query names a password, in any case or encoding (password, Password[], pass%77ord…). */
export function queryHasPassword(url: string): boolean {
  const start = url.indexOf('?');
  if (start < 0) return false;
  return url
    .slice(start + 1)
    .split(/[&;]/)
    .some((pair) => /^password(\[.*\])?$/i.test(decodeName(pair.split('=', 1)[0] ?? '').trim()));
}

/** The URL as logs may show it: without its query when that carries a password. */
export function loggableUrl(url: string): string {
  return queryHasPassword(url) ? `${url.slice(0, url.indexOf('?'))}?[query redacted: password]` : url;
}

/** Fastify's request serializer, with the URL made loggable. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggableUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * The logger to give Fastify: its `req` serializer wins over Fastify's own, and errors are logged
 * without the raw request bytes of a malformed request (Fastify logs those at trace level).
 */
export function withLoggableRequests(logger: Logger): Logger {
  return logger.child({}, { serializers: { req: serializeRequest, err: serializeError } });
}

/** Request logging on, and the "route not found" line (which uses the raw URL) made loggable. */
export class LoggableUrlLogController extends LogController {
  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.info(`Route ${request.method}:${loggableUrl(request.raw.url ?? '')} not found`);
  }
}
