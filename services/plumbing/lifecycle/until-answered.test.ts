// How a start that waits on a server tells the operator: failures expected while a server settles
// are info, the ones after warn.
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { untilAnswered } from './until-answered.js';

function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: createLogger('test', 'info', destination), lines };
}

/** An attempt failing `failures` times, then answering. */
function failing(failures: number) {
  let calls = 0;
  return async () => {
    calls += 1;
    if (calls <= failures) throw new Error('This server is not the leader for that topic-partition');
    return 'answered';
  };
}

it('logs the expected failures at info and only the later ones as warnings', async () => {
  const { logger, lines } = capturingLogger();
  expect(await untilAnswered('Kafka', failing(3), logger, { initialDelayMs: 1, expectedFailures: 2 })).toBe('answered');
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [30, 'Kafka does not answer yet; retrying'],
    [30, 'Kafka does not answer yet; retrying'],
    [40, 'Kafka does not answer yet; retrying'],
    [30, 'Kafka answers'],
  ]);
});

it('warns at the first failure when none is expected', async () => {
  const { logger, lines } = capturingLogger();
  await untilAnswered('the store (MongoDB)', failing(1), logger, { initialDelayMs: 1 });
  expect(lines.map((l) => l.level)).toEqual([40, 30]);
});
