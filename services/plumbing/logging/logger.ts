import { pino, type DestinationStream, type Logger } from 'pino';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** Paths that may carry secrets; pino replaces their values before a line is written. */
export const redactedPaths = [
  'password',
  '*.password',
  'req.headers.authorization',
  'headers.authorization',
  'mongodbUri',
  '*.mongodbUri',
  'redisUrl',
  '*.redisUrl',
  // Node's HTTP parser errors carry the raw bytes of the request, headers and body included.
  'rawPacket',
  '*.rawPacket',
];

/** pino's error serializer without the raw request bytes that HTTP parser errors carry. */
export function serializeError(error: unknown): object {
  const { rawPacket: _raw, ...rest } = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  return rest;
}

/** A logger writing JSON lines to standard output, or to `destination` (tests read it). */
export function createLogger(name: string, level: LogLevel = 'info', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: redactedPaths, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
export type { Logger };
