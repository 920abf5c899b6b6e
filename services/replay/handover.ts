import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaAdmin } from '../adapters/kafka/admin.js';
import type { KafkaClient } from '../adapters/kafka/client.js';
import type { StoreDatabase } from '../adapters/mongodb/connect.js';
import { holdPreviousVersion, releasePreviousVersion, type BuildRecord } from '../adapters/mongodb/active-version.js';
import { changeTimeOverlapMs } from '../adapters/mongodb/changed-since.js';
import { ErrorCodes, OssnError } from '../../contracts/errors/ossn-error.js';

export interface HandoverOptions {
  /** The whole hand-over, given up (and the hold released) past it. */
  deadlineMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
  onWait?(what: string): void;
  /**
   * Run once the build is level, the live version still held: what must be done while nothing
   * changes in it (carrying over the times it showed since the build began).
   */
  whileLevel?(): Promise<void>;
  /** Called at every turn and before returning level: throws when this replay may not go on (its lock lost). */
  check?(): void;
}

/** A hold lasts this long past its last renewal (see holdPreviousVersion). */
export const holdMs = 30_000;

export class HandoverTimeoutError extends OssnError {
  override readonly name = 'HandoverTimeoutError';
  constructor(message: string) {
    super(ErrorCodes.HANDOVER_TIMEOUT, message);
  }
}

const atLeast = (have: Map<number, bigint>, need: Map<number, bigint>) => [...need].every(([partition, offset]) => (have.get(partition) ?? 0n) >= offset);

/**
 * Held long enough that every time the live version shows is older than the switch less the
 * lookups' overlap and a query service's refresh: a partner answered from the new version, then
 * by a query service not switched yet, is not handed the older state as news.
 */
const quietBeforeSwitchMs = changeTimeOverlapMs + 2_000;

/**
 * Brings the build level with the live version, with no window in which the live version shows
 * what the build lacks. The live version's projectors are asked (through the store) to stop
 * writing it: they check before every batch's write (see writeFence) and leave their consumer
 * group. Once the group has no member, nothing writes the live version any more; whatever it
 * shows comes from events the topic held then (committed or not: a projector killed between its
 * write and its commit shows more than it committed), so the build (its consumer running) catches
 * up to the topic's end offsets taken then. Returns with the live version still held, for the
 * caller to switch; a hold lapses by itself if this replay dies.
 *
 * Returns false when stopped (signal); the hold is then released.
 */
export async function catchUpWithLiveVersion(
  db: StoreDatabase,
  kafka: KafkaClient,
  topic: string,
  build: BuildRecord,
  liveGroup: string,
  options: HandoverOptions = {},
): Promise<boolean> {
  const pollMs = options.pollMs ?? 250;
  const deadline = Date.now() + (options.deadlineMs ?? 300_000);
  const admin = new KafkaAdmin(kafka);
  await admin.connect();
  let holding = false;
  let target: Map<number, bigint> | undefined;
  let quietFrom = 0;
  try {
    for (;;) {
      if (options.signal?.aborted) return false;
      options.check?.();
      if (Date.now() > deadline) {
        throw new HandoverTimeoutError(
          `the live version ${build.previous} was not handed over within ${Math.round((options.deadlineMs ?? 300_000) / 1000)} s (its projectors did not stop, or version ${build.version} did not catch up with them); run ossn replay again`,
        );
      }
      // (Re)asks for the hold, or renews it; one that lapsed may have let a projector go on.
      const renewed = await holdPreviousVersion(db, build, holdMs, !holding);
      if (!renewed && !holding) throw new Error(`the rebuild of version ${build.version} is no longer recorded (discarded?); nothing was switched`);
      if (!renewed) target = undefined; // lapsed: start again
      holding = renewed;
      if (!holding) continue;
      if (!target) {
        if ((await admin.memberCount(liveGroup)) > 0) {
          options.onWait?.(`waiting for the projectors of version ${build.previous} to stop writing it`);
          await sleep(pollMs);
          continue;
        }
        target = await admin.endOffsets(topic);
        quietFrom = Date.now();
      }
      if (!atLeast(await admin.committedOffsets(build.consumerGroup, topic), target)) {
        options.onWait?.(`version ${build.version} catching up with version ${build.previous}`);
        await sleep(pollMs);
        continue;
      }
      const quietLeft = quietFrom + quietBeforeSwitchMs - Date.now();
      if (quietLeft > 0) {
        await sleep(Math.min(quietLeft, pollMs * 4));
        continue;
      }
      await renewedWhile(db, build, () => options.whileLevel?.());
      options.check?.();
      // Still nobody writing the live version (a projector that started in between would have met the hold at its first write).
      if ((await admin.memberCount(liveGroup)) === 0 && (await holdPreviousVersion(db, build, holdMs, false))) return true;
      target = undefined;
    }
  } catch (error) {
    await releasePreviousVersion(db, build).catch(() => undefined);
    throw error;
  } finally {
    if (options.signal?.aborted) await releasePreviousVersion(db, build).catch(() => undefined);
    await admin.disconnect();
  }
}

/**
 * `work`, the hold renewed every quarter of its time while it runs, however long it takes: one
 * renewal at a time (each bounded, see holdPreviousVersion), the last one awaited before returning.
 */
async function renewedWhile(db: StoreDatabase, build: BuildRecord, work: () => Promise<void> | undefined): Promise<void> {
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(() => holdPreviousVersion(db, build, holdMs, false).catch(() => undefined));
  }, holdMs / 4);
  try {
    await work();
  } finally {
    clearInterval(timer);
    await renewing;
  }
}
