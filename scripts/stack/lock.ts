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
  // A holder still running, this process included: a second caller here waits like any other.
  return holder;
}

export interface LockOptions {
  /** Says that, and for whom, the caller waits. */
  log: (line: string) => void;
  signal?: AbortSignal;
  /** How long to wait for a holder that still runs; 20 minutes by default. */
  timeoutMs?: number;
  /** What holds the lock, as the messages name it: 'another stack command' by default. */
  holder?: string;
}

/**
 * Runs `fn` while holding the lock file, so that two callers (a test run and `npm start`, say,
 * or two calls in one process) never do the same work at once. Waits, within a deadline, for a
 * holder that is still running; takes over the lock of one that died.
 */
export async function withLock<T>(file: string, options: LockOptions, fn: () => Promise<T>): Promise<T> {
  const { timeoutMs = 20 * 60_000, holder: what = 'another stack command' } = options;
  let holder = tryAcquire(file);
  if (holder) {
    options.log(`waiting for ${what} (pid ${holder.pid}) to finish with ${shown(file)}`);
    await waitFor(() => (holder = tryAcquire(file)) === undefined, {
      timeoutMs,
      intervalMs: 250,
      signal: options.signal,
      timeoutMessage: `${what} (pid ${holder.pid}) has held ${shown(file)} for ${timeoutMs >= 60_000 ? `${timeoutMs / 60_000} minutes` : `${timeoutMs / 1000} s`}; let it finish or stop it`,
    });
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Takes the lock as withLock does and holds it until the returned function is called: for a
 * holder whose work is not one function (a test run, from its setup to its teardown).
 */
export async function acquireLock(file: string, options: LockOptions): Promise<() => Promise<void>> {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let taken = () => {};
  const acquired = new Promise<void>((resolve) => (taken = resolve));
  const holding = withLock(file, options, async () => {
    taken();
    await released;
  });
  await Promise.race([acquired, holding]);
  return async () => {
    release();
    await holding;
  };
}
