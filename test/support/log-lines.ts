import type { DestinationStream } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino destination that keeps every line, parsed, for a test to read. */
export function logLines(): DestinationStream & { lines: LogLine[]; raw: string[]; atLeast(level: 'warn' | 'error'): LogLine[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  return {
    lines,
    raw,
    write(chunk: string) {
      raw.push(chunk);
      for (const text of chunk.split('\n').filter(Boolean)) lines.push(JSON.parse(text) as LogLine);
    },
    atLeast(level) {
      const threshold = level === 'warn' ? 40 : 50;
      return lines.filter((line) => line.level >= threshold);
    },
  };
}
