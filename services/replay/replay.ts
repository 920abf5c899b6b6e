import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { ProjectorConfig } from '../config/config.js';
import { partitionLags } from '../kafka/progress.js';
import { readTopic } from '../kafka/read-topic.js';
import type { Logger } from '../logging/logger.js';
import { startProjector } from '../projector/run.js';
import { configForVersion } from '../projector/versions.js';
import {
  activateBuild,
  forgetBuild,
  forgetPrevious,
  readActiveVersion,
  readBuild,
  recordBuild,
  type ActiveVersionRecord,
  type BuildRecord,
} from '../read-model-store/active-version.js';
import { collectionNames, readModelCollections } from '../read-model-store/documents.js';
import { settleChangeTimes, type ChangeTimeReport } from './change-times.js';
import { settleShipmentTimes, type ShipmentTimeReport } from './shipment-times.js';
import { verified, verifyRebuild, type VerifyReport } from './verify.js';

export interface ReplayContext {
  config: ProjectorConfig;
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

export type ReplayPhase = 'rebuilding' | 'verifying' | 'switching';

export interface ReplayOptions {
  /** Events committed by the rebuild of all the topic holds (now), while it rebuilds. */
  onProgress?(done: number, total: number): void;
  onPhase?(phase: ReplayPhase, build: BuildRecord): void | Promise<void>;
  /** Stops the rebuild where it is (it can be resumed); checked every `pollMs`. */
  signal?: AbortSignal;
  /** A rebuild that commits nothing for this long is given up (resumable); 5 minutes by default. */
  stallTimeoutMs?: number;
  pollMs?: number;
}

export type ReplayResult =
  | { outcome: 'switched'; build: BuildRecord; active: ActiveVersionRecord; verify: VerifyReport; changeTimes: ChangeTimeReport; shipmentTimes: ShipmentTimeReport }
  | { outcome: 'stopped'; build: BuildRecord }
  | { outcome: 'refused'; build: BuildRecord; verify: VerifyReport };

/** Versions that have read-model collections in the store. */
async function storedVersions(db: Db): Promise<number[]> {
  const names = await db.listCollections({}, { nameOnly: true }).toArray();
  return names.flatMap(({ name }) => {
    const match = /^order_status_v(\d+)$/.exec(name);
    return match ? [Number(match[1])] : [];
  });
}

/** The rebuild in progress, or a new one into the first version above every stored one. */
async function beginOrResumeBuild(ctx: ReplayContext): Promise<{ build: BuildRecord; resumed: boolean }> {
  const existing = await readBuild(ctx.db);
  if (existing) return { build: existing, resumed: true };
  const active = await readActiveVersion(ctx.db, ctx.config.store.readModelVersion);
  const version = Math.max(active.version, ...(await storedVersions(ctx.db))) + 1;
  const build = await recordBuild(ctx.db, {
    version,
    previous: active.version,
    consumerGroup: configForVersion(ctx.config, version).consumerGroup,
    startedAt: new Date(),
  });
  return { build, resumed: false };
}

/** Committed offsets of the group and the topic's end, summed over partitions. */
async function groupProgress(kafka: Kafka, groupId: string, topic: string) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const lags = await partitionLags(admin, groupId, topic);
    const total = lags.reduce((sum, p) => sum + p.end, 0n);
    const lag = lags.reduce((sum, p) => sum + p.lag, 0n);
    return { done: Number(total - lag), total: Number(total), lag, committed: new Map(lags.map((p) => [p.partition, p.end - p.lag])) };
  } finally {
    await admin.disconnect();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the rebuild's consumer until its group has committed the whole topic, or until stopped. */
async function rebuildUntilCaughtUp(ctx: ReplayContext, build: BuildRecord, options: ReplayOptions): Promise<'caught-up' | 'stopped'> {
  let projector: Awaited<ReturnType<typeof startProjector>>;
  try {
    const config = { ...configForVersion(ctx.config, build.version, build.previous), consumerGroup: build.consumerGroup };
    projector = await startProjector(config, ctx.logger, { signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) return 'stopped'; // stopped while a server was away
    throw error;
  }
  try {
    let lastDone = -1;
    let lastMove = Date.now();
    for (;;) {
      const { done, total, lag } = await groupProgress(ctx.kafka, build.consumerGroup, ctx.config.topic);
      options.onProgress?.(done, total);
      if (lag === 0n) return 'caught-up';
      if (options.signal?.aborted) return 'stopped';
      if (done !== lastDone) [lastDone, lastMove] = [done, Date.now()];
      if (Date.now() - lastMove > (options.stallTimeoutMs ?? 300_000)) {
        throw new Error(`the rebuild of version ${build.version} committed nothing for ${Math.round((Date.now() - lastMove) / 1000)} s (${done} of ${total} events); run ossn replay again to resume`);
      }
      await sleep(options.pollMs ?? 1_000);
    }
  } finally {
    // Stops after the batch in progress: what the version holds is then exactly what was committed.
    await projector.stop();
  }
}

/**
 * `ossn replay`: rebuilds the read models from the beginning of the topic into the next version
 * (or resumes the rebuild in progress) while the active version keeps serving; once the rebuild
 * has caught up with the topic it stops, is checked against a fresh fold of the events it
 * consumed, its change and visible times are settled against the live version, and it becomes the active
 * version. Query services and `ossn projector` follow the switch within seconds; the projector
 * goes on from the rebuild's consumer group. A stopped or refused rebuild stays a build: it never
 * becomes active but by a later `ossn replay` that completes it.
 */
export async function replay(ctx: ReplayContext, options: ReplayOptions = {}): Promise<ReplayResult> {
  const { build } = await beginOrResumeBuild(ctx);
  const live = readModelCollections(ctx.db, build.previous);
  const rebuilt = readModelCollections(ctx.db, build.version);

  await options.onPhase?.('rebuilding', build);
  if ((await rebuildUntilCaughtUp(ctx, build, options)) === 'stopped') return { outcome: 'stopped', build };

  await options.onPhase?.('verifying', build);
  const { committed } = await groupProgress(ctx.kafka, build.consumerGroup, ctx.config.topic);
  const messages = await readTopic(ctx.kafka, ctx.config.topic, { until: committed, timeoutMs: 600_000 });
  const verify = await verifyRebuild(messages, rebuilt);
  if (!verified(verify)) return { outcome: 'refused', build, verify };

  await options.onPhase?.('switching', build);
  const changeTimes = await settleChangeTimes(rebuilt, live);
  const shipmentTimes = await settleShipmentTimes(rebuilt, live);
  const active = await activateBuild(ctx.db, build);
  return { outcome: 'switched', build, active, verify, changeTimes, shipmentTimes };
}

/** Throws a stopped or refused rebuild away: its collections, its consumer group, its record. */
export async function discardBuild(ctx: ReplayContext): Promise<BuildRecord | undefined> {
  const build = await readBuild(ctx.db);
  if (!build) return undefined;
  await dropVersion(ctx, build.version, build.consumerGroup);
  await forgetBuild(ctx.db);
  return build;
}

/** Drops the version the last switch replaced (its collections and consumer group). */
export async function dropPrevious(ctx: ReplayContext): Promise<number | undefined> {
  const active = await readActiveVersion(ctx.db, ctx.config.store.readModelVersion);
  if (active.previous === undefined || active.previous === active.version) return undefined;
  await dropVersion(ctx, active.previous, configForVersion(ctx.config, active.previous).consumerGroup);
  await forgetPrevious(ctx.db);
  return active.previous;
}

async function dropVersion(ctx: ReplayContext, version: number, consumerGroup: string): Promise<void> {
  // The group first: Kafka refuses to delete one with members (a projector still on that version),
  // and then nothing is dropped under it.
  const admin = ctx.kafka.admin();
  await admin.connect();
  try {
    const groups = new Set((await admin.listGroups()).groups.map((g) => g.groupId));
    if (groups.has(consumerGroup)) {
      const [group] = (await admin.describeGroups([consumerGroup])).groups;
      if ((group?.members.length ?? 0) > 0) throw new Error(`consumer group ${consumerGroup} of version ${version} still has members; stop or switch them first`);
      await admin.deleteGroups([consumerGroup]);
    }
  } finally {
    await admin.disconnect();
  }
  const names = collectionNames(version);
  const existing = new Set((await ctx.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of [names.orderStatus, names.shipments]) if (existing.has(name)) await ctx.db.dropCollection(name);
}
