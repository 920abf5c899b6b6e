import { describe, expect, it } from 'vitest';
import { heartbeatTimings } from './consumer.js';

/**
 * The longest silence between two heartbeats while a batch runs: the keep-alive asks every
 * `keepAliveEveryMs`, and kafkajs sends only once `heartbeatIntervalMs` has passed since its
 * previous heartbeat ended (each takes `requestMs`). Simulated over a minute.
 */
function longestSilenceMs(sessionTimeoutMs: number, requestMs: number): number {
  const { heartbeatIntervalMs, keepAliveEveryMs } = heartbeatTimings(sessionTimeoutMs);
  let lastEnded = 0;
  let lastSent = 0;
  let longest = 0;
  for (let now = keepAliveEveryMs; now <= 60_000; now += keepAliveEveryMs) {
    if (now < lastEnded + heartbeatIntervalMs) continue;
    longest = Math.max(longest, now - lastSent);
    lastSent = now;
    lastEnded = now + requestMs;
  }
  return longest;
}

describe('heartbeats during a batch slower than the session', () => {
  it.each([6_000, 10_000, 15_000, 30_000, 1_800_000])('a %i ms session hears from the member at least every half session', (sessionTimeoutMs) => {
    for (const requestMs of [5, 50, 250]) expect(longestSilenceMs(sessionTimeoutMs, requestMs)).toBeLessThanOrEqual(sessionTimeoutMs / 2);
  });

  it('heartbeats at most every 3 s, however long the session', () => {
    expect(heartbeatTimings(1_800_000).heartbeatIntervalMs).toBe(3_000);
  });
});
