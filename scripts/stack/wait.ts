import { setTimeout as delay } from 'node:timers/promises';
import { StackError } from './stack-error.js';

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  signal?: AbortSignal;
  /** Checked before every attempt: a message here ends the wait at once (e.g. the process died). */
  failFast?: () => string | undefined;
  /** The error message when the time is up (made then, when a function: what a log says by that time, say). */
  timeoutMessage: string | (() => string);
}

/** Polls `check` until it returns true; a check that throws counts as not yet. */
export async function waitFor(check: () => Promise<boolean> | boolean, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const failure = options.failFast?.();
    if (failure !== undefined) throw new StackError(failure);
    if (await Promise.resolve().then(check).catch(() => false)) return;
    if (Date.now() >= deadline) {
      const { timeoutMessage } = options;
      throw new StackError(typeof timeoutMessage === 'string' ? timeoutMessage : timeoutMessage());
    }
    await delay(options.intervalMs ?? 200, undefined, { signal: options.signal });
  }
}
