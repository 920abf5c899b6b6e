import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/config.js';

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
];

export function createLogger(name: string, level: LogLevel = 'info'): Logger {
  return pino({ name, level, redact: { paths: redactedPaths, censor: '[redacted]' } });
}
export type { Logger };
