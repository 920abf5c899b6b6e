import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isAbort, StackError } from './stack-error.js';

describe('isAbort', () => {
  it("knows Node's AbortError by its code and an aborted controller's reason by its DOMException name", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, undefined, { signal: controller.signal });
    controller.abort();
    const nodeAbort = await waiting.catch((error: unknown) => error);
    expect(isAbort(nodeAbort)).toBe(true);
    expect(isAbort(controller.signal.reason)).toBe(true);
  });

  it('is false for a failure that merely has the name or the words', () => {
    const named = Object.assign(new Error('the user aborted'), { name: 'AbortError' });
    expect(isAbort(named)).toBe(false);
    expect(isAbort(new StackError('kafka: aborted'))).toBe(false);
    expect(isAbort('AbortError')).toBe(false);
  });

  it('gives a StackError its code', () => {
    expect(new StackError('mongodb: no python3')).toMatchObject({ code: 'OSSN_STACK_FAILED', name: 'StackError' });
  });
});
