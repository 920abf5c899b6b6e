import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { shown } from './config.js';
import { isRunning, ownProcess, type ProcessRecord } from './process.js';
import { waitFor } from './wait.js';

function tryAcquire(file: string): ProcessRecord | undefined {
  try {
    writeFileSync(file, JSON.stringify(ownProcess()), { flag: 'wx' });
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let holder: ProcessRecord | undefined;
  try {
    holder = JSON.parse(readFileSync(file, 'utf8')) as ProcessRecord;
  } catch {
    // Being written this very moment by another process, or left empty by one that died then.
    const written = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (written !== undefined && Date.now() - written < 5_000) return { pid: 0 };
  }
  if (!holder || !isRunning(holder)) {
    // Left behind by a process that died: take it over.
    rmSync(file, { force: true });
    return tryAcquire(file);
  }
  return holder;
}

/**
 * Runs `fn` while holding the stack's lock file, so that two callers (a test run and `npm start`,
 * say) never start the same servers twice. Waits for a holder that is still running.
 */
export async function withLock<T>(
  file: string,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  let holder = tryAcquire(file);
  if (holder) {
    log(`waiting for another stack command (pid ${holder.pid}) to finish with ${shown(file)}`);
    await waitFor(() => (holder = tryAcquire(file)) === undefined, {
      timeoutMs: 20 * 60_000,
      intervalMs: 250,
      signal,
      timeoutMessage: `another stack command (pid ${holder.pid}) has held ${shown(file)} for 20 minutes`,
    });
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}
