import { randomInt } from 'node:crypto';

/**
 * The seed of a test's random choices: the environment variable `variable` when set, a fresh one
 * otherwise. It is printed either way, so that a failing run can be replayed: the same variable
 * set to it makes the same choices again. Draw every random choice of the test from it (e.g.
 * `new Random(seed)` from services/ossn/demo-events/random.ts, or fast-check's `seed` parameter), never
 * from Math.random.
 */
export function testSeed(variable: string): number {
  const given = process.env[variable]?.trim();
  const seed = given ? Number(given) : randomInt(1, 2 ** 31 - 1);
  if (!Number.isSafeInteger(seed)) throw new Error(`${variable} must be an integer seed, got "${given}"`);
  console.log(`random choices from seed ${seed}${given ? ` (from ${variable})` : ''}: ${variable}=${seed} replays them`);
  return seed;
}
