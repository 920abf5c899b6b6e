import { describe, expect, it } from 'vitest';
import { ProgressDisplay, progressLine } from './progress-display.js';

function capture(isTTY: boolean) {
  const written: string[] = [];
  const out = { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
  return { out, written };
}

describe('progress display', () => {
  it('says done of total, the rate and the time left', () => {
    expect(progressLine(12_000, 100_000, 'events', 4)).toBe('12,000 of 100,000 events (12%), 3,000 events/s, 29s left');
    expect(progressLine(500, undefined, 'events', 2)).toBe('500 events, 250 events/s');
  });

  it('writes one plain line every few seconds when not a terminal', () => {
    let now = 0;
    const { out, written } = capture(false);
    const display = new ProgressDisplay({ unit: 'events', out, now: () => now, plainIntervalMs: 5_000 });
    for (now = 1_000; now <= 12_000; now += 1_000) display.update(now, 20_000);
    expect(written).toEqual([
      '1,000 of 20,000 events (5%), 1,000 events/s, 19s left\n',
      '6,000 of 20,000 events (30%), 1,000 events/s, 14s left\n',
      '11,000 of 20,000 events (55%), 1,000 events/s, 9s left\n',
    ]);
  });

  it('rewrites one line in place on a terminal and ends it before the last line', () => {
    let now = 0;
    const { out, written } = capture(true);
    const display = new ProgressDisplay({ unit: 'events', out, now: () => now });
    now = 1_000;
    display.update(10, 20);
    display.finish('done');
    expect(written[0]?.startsWith('\r\x1b[2K10 of 20 events')).toBe(true);
    expect(written.slice(1)).toEqual(['\r\x1b[2K', 'done\n']);
  });
});
