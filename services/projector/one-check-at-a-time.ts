export interface Ticking {
  /** No check starts after this; resolves once the check in progress (if any) has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `check` every `ms` (the timer unref'd), one at a time: a tick that comes while the previous
 * check is still running (waiting on a server away, say) is skipped, not queued, so checks never
 * pile up to run back to back once the server answers. A failed check goes to `onError`; the next
 * tick tries again.
 */
export function everyTickOneAtATime(check: () => Promise<void>, ms: number, onError: (error: unknown) => void): Ticking {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = check()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  }, ms);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
