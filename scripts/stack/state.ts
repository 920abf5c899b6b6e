import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { ProcessRecord } from './process.js';
import type { ServerName } from './server.js';

export interface ServerRecord extends ProcessRecord {
  /** The ports it was started on: a server started on other ports than configured now is restarted. */
  ports: number[];
}

export type StackState = Partial<Record<ServerName, ServerRecord>>;

export function readState(file: string): StackState {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { servers?: StackState }).servers ?? {};
  } catch {
    return {};
  }
}

/** Written after every change, whole and atomically, so a crash of the caller never loses a pid. */
export function writeState(file: string, servers: StackState): void {
  if (Object.keys(servers).length === 0) {
    rmSync(file, { force: true });
    return;
  }
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ servers }, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
