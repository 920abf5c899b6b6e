// How the failover suite's case (f) groups a credential's answers into rate-limit windows: a table
// of answers as a loaded machine gives them, without the cluster.
import { describe, expect, it } from 'vitest';
import { admittedWindows, type LimitedAnswer } from './over-limit-load.js';

const ok = (startedAt: number, endedAt: number): LimitedAnswer => ({ startedAt, endedAt, status: 200 });
const refused = (startedAt: number, endedAt: number): LimitedAnswer => ({ startedAt, endedAt, status: 429 });
const opening = (answers: LimitedAnswer[]) => admittedWindows(answers, 1_000).map((w) => ({ admitted: w.admitted, from: w.from }));

describe('admittedWindows', () => {
  it.each([
    {
      case: 'windows opening 10 s apart, each admitting then refusing',
      answers: [ok(0, 50), ok(10, 60), refused(100, 120), ok(10_000, 10_050), refused(10_100, 10_130)],
      windows: [
        { admitted: 2, from: 50 },
        { admitted: 1, from: 10_050 },
      ],
    },
    {
      // A request queued seconds before the window that admitted it: dated by its start, the
      // second window seemed to open 7 s after the first.
      case: 'a request asked for 3 s before its window opened is dated by its answer',
      answers: [ok(0, 50), refused(100, 120), ok(7_000, 10_040), ok(10_010, 10_060), refused(10_100, 10_130)],
      windows: [
        { admitted: 1, from: 50 },
        { admitted: 2, from: 10_040 },
      ],
    },
    {
      // Its window's refusals ended before it: joined by its end, it would be a window of its own.
      case: 'an admitted answer slower than the slack stays in its window',
      answers: [ok(0, 50), ok(20, 2_500), refused(100, 150), refused(200, 250), refused(2_600, 2_650), ok(10_000, 10_050)],
      windows: [
        { admitted: 2, from: 50 },
        { admitted: 1, from: 10_050 },
      ],
    },
  ])('$case', ({ answers, windows }) => {
    expect(opening(answers)).toEqual(windows);
  });
});
