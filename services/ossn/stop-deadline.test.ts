import { pino } from 'pino';
import { afterEach, expect, it, vi } from 'vitest';
import { stopWithinDeadline } from './stop-deadline.js';

/** A logger whose lines the test reads. */
function logged() {
  const lines: { level: number; msg: string; abandoned?: string }[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) }) };
}

const never = () => new Promise<never>(() => undefined);

afterEach(() => {
  vi.useRealTimers();
  process.exitCode = undefined;
});

it('ends within its deadline when a step never does, naming the step it abandons', async () => {
  const { lines, logger } = logged();
  const ran: string[] = [];
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  let ended = false;
  const stopping = stopWithinDeadline(100, logger, [
    ['closing a port', async () => void ran.push('port')],
    ['stopping the projector', never],
    ['closing the connections', async () => void ran.push('connections')],
  ]).then(() => (ended = true));
  await vi.advanceTimersByTimeAsync(99);
  expect(ended).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(ended).toBe(true);
  await stopping;
  expect(ran).toEqual(['port']);
  expect(lines.map(({ msg, abandoned }) => ({ msg, abandoned }))).toEqual([{ msg: 'the stop abandoned: not done within 100 ms', abandoned: 'stopping the projector' }]);
  expect(process.exitCode).toBeUndefined();
});

it('leaves a step at its own bound and goes on; a step that fails is logged, the next ones run, and the exit code becomes 1', async () => {
  const { lines, logger } = logged();
  const ran: string[] = [];
  await stopWithinDeadline(10_000, logger, [
    ['closing a port', never, 50],
    [
      'stopping the projector',
      async () => {
        throw new Error('store away');
      },
    ],
    ['closing the connections', async () => void ran.push('connections')],
  ]);
  expect(ran).toEqual(['connections']);
  expect(lines.map(({ msg }) => msg)).toEqual(['closing a port abandoned: not done within 50 ms', 'stopping the projector failed']);
  expect(process.exitCode).toBe(1);
});
