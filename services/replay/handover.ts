import type { Admin, Kafka } from 'kafkajs';
import { holdPreviousVersion, releasePreviousVersion, type BuildRecord } from '../read-model-store/active-version.js';
import type { Db } from 'mongodb';

export interface HandoverOptions {
  /** How long a hold lasts without renewal: a replay gone lets the live projectors go on after it. */
  holdMs?: number;
  /** The whole hand-over, given up (and the hold released) past it. */
  deadlineMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
  onWait?(what: string): void;
}

export class HandoverTimeoutError extends Error {
  override readonly name = 'HandoverTimeoutError';
  readonly code = 'HANDOVER_TIMEOUT';
}

/** Committed offsets of a group on `topic`, by partition (0 where it never committed). */
async function committedOffsets(admin: Admin, groupId: string, topic: string): Promise<Map<number, bigint>> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return new Map((committed?.partitions ?? []).map((p) => [p.partition, p.offset === '-1' ? 0n : BigInt(p.offset)]));
}

async function members(admin: Admin, groupId: string): Promise<number> {
  const [group] = (await admin.describeGroups([groupId])).groups;
  return group?.members.length ?? 0;
}

const atLeast = (have: Map<number, bigint>, need: Map<number, bigint>) => [...need].every(([partition, offset]) => (have.get(partition) ?? 0n) >= offset);
const same = (a: Map<number, bigint>, b: Map<number, bigint>) => a.size === b.size && [...a].every(([partition, offset]) => b.get(partition) === offset);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Brings the build level with the live version, with no window in which the live version shows
 * what the build lacks: the live version's projectors are asked (through the store) to stop
 * writing it; once its consumer group has no member, what it has committed is all it will ever
 * show, and the build's consumer (running) catches up to that. Returns with the live version
 * still held: the caller switches, then releases. A hold lapses by itself if this replay dies.
 *
 * Returns false when stopped (signal); the hold is then released.
 */
export async function catchUpWithLiveVersion(
  db: Db,
  kafka: Kafka,
  topic: string,
  build: BuildRecord,
  liveGroup: string,
  options: HandoverOptions = {},
): Promise<boolean> {
  const holdMs = options.holdMs ?? 30_000;
  const pollMs = options.pollMs ?? 250;
  const deadline = Date.now() + (options.deadlineMs ?? 300_000);
  const admin = kafka.admin();
  await admin.connect();
  let holding = false;
  try {
    for (;;) {
      if (options.signal?.aborted) return false;
      if (Date.now() > deadline) {
        throw new HandoverTimeoutError(
          `the live version ${build.previous} was not handed over within ${Math.round((options.deadlineMs ?? 300_000) / 1000)} s (its projectors did not stop, or version ${build.version} did not catch up with them); run ossn replay again`,
        );
      }
      // (Re)asks for the hold, or renews it; one that lapsed may have let a projector go on.
      holding = await holdPreviousVersion(db, build, holdMs, !holding);
      if (!holding) continue;
      if ((await members(admin, liveGroup)) > 0) {
        options.onWait?.(`waiting for the projectors of version ${build.previous} to stop writing it`);
        await sleep(pollMs);
        continue;
      }
      const live = await committedOffsets(admin, liveGroup, topic);
      if (!atLeast(await committedOffsets(admin, build.consumerGroup, topic), live)) {
        options.onWait?.(`version ${build.version} catching up with version ${build.previous}`);
        await sleep(pollMs);
        continue;
      }
      // Still nobody writing the live version, and it moved on in nothing since it was read.
      if ((await members(admin, liveGroup)) === 0 && same(await committedOffsets(admin, liveGroup, topic), live)) return true;
    }
  } catch (error) {
    await releasePreviousVersion(db, build).catch(() => undefined);
    throw error;
  } finally {
    if (options.signal?.aborted) await releasePreviousVersion(db, build).catch(() => undefined);
    await admin.disconnect();
  }
}
