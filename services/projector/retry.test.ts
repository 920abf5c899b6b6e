import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BatchAbandoned } from '../adapters/kafka/consumer.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { retryUntilDone } from './retry.js';

const logger = createLogger('retry-test', 'silent');

describe('retryUntilDone', () => {
  it('gives up a try that waits on a server that never answers once the stop no longer waits for the batch', async () => {
    const abandon = new AbortController();
    const context = { heartbeat: async () => undefined, isStopping: () => abandon.signal.aborted, signal: abandon.signal };
    const hung = retryUntilDone(() => new Promise<never>(() => undefined), { context, logger, what: 'a hung write' });
    // The try has begun and never ends: only the stop's signal can end the wait for it.
    abandon.abort();
    await expect(hung).rejects.toThrow(BatchAbandoned);
  });

  it('cuts a pause between tries short when the stop no longer waits', async () => {
    const abandon = new AbortController();
    const context = { heartbeat: async () => undefined, isStopping: () => abandon.signal.aborted, signal: abandon.signal };
    let tries = 0;
    // The stop comes as the try has failed and the pause of a minute begins (its warning is logged).
    const stopsAtTheWarning = pino({ level: 'warn' }, { write: () => abandon.abort() });
    const failing = retryUntilDone(
      async () => {
        tries++;
        throw new Error('store away');
      },
      { context, logger: stopsAtTheWarning, what: 'a write', initialDelayMs: 60_000 },
    );
    await expect(failing).rejects.toThrow(BatchAbandoned);
    await expect(failing).rejects.toMatchObject({ code: 'OSSN_BATCH_ABANDONED', cause: { message: 'store away' } });
    expect(tries).toBe(1);
  });

  it('without a signal, retries until the work succeeds', async () => {
    let tries = 0;
    const context = { heartbeat: async () => undefined, isStopping: () => false };
    const result = await retryUntilDone(
      async () => {
        if (++tries < 3) throw new Error('store away');
        return 'done';
      },
      { context, logger, what: 'a write', initialDelayMs: 1 },
    );
    expect({ result, tries }).toEqual({ result: 'done', tries: 3 });
  });
});
