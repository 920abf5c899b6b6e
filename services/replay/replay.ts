import { setTimeout as sleep } from 'node:timers/promises';
import type { ProjectorConfig } from '../config/config.js';
import { withKafkaAdmin } from '../adapters/kafka/admin.js';
import type { KafkaClient } from '../adapters/kafka/client.js';
import type { StoreDatabase } from '../adapters/mongodb/connect.js';
import { databaseTime } from '../adapters/mongodb/server-commands.js';
import { dropVersionCollections, storedVersions } from '../adapters/mongodb/stored-versions.js';
import { deadLetteredSources } from '../domain/dead-letters/dead-lettered-sources.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import type { Logger } from '../plumbing/logging/logger.js';
import { startProjector, type RunningProjector } from '../projector/run.js';
import { configForVersion } from '../projector/versions.js';
import {
  activateBuild,
  forgetBuild,
  forgetPrevious,
  holdPreviousVersion,
  readActiveVersion,
  readBuild,
  recordBuild,
  type ActiveVersionRecord,
  type BuildRecord,
} from '../adapters/mongodb/active-version.js';
import { acquireReplayLock, type ReplayLock } from '../adapters/mongodb/replay-lock.js';
import { readModelCollections, type ReadModelCollections } from '../adapters/mongodb/documents.js';
import { changeTimeOverlapMs } from '../adapters/mongodb/changed-since.js';
import { settleChangeTimes, type ChangeTimeReport } from '../adapters/mongodb/settle-change-times.js';
import { catchUpWithLiveVersion, HandoverTimeoutError, holdMs } from './handover.js';
import { settleShipmentTimes, type ShipmentTimeReport } from '../adapters/mongodb/settle-shipment-times.js';
import { verified, verifyRebuild, type VerifyReport } from './verify.js';

export interface ReplayContext {
  config: ProjectorConfig;
  db: StoreDatabase;
  kafka: KafkaClient;
  logger: Logger;
}

export type ReplayPhase = 'rebuilding' | 'verifying' | 'switching' | 'settling';

export interface ReplayOptions {
  /** Events committed by the rebuild of all the topic holds (now), while it rebuilds. */
  onProgress?(done: number, total: number): void;
  onPhase?(phase: ReplayPhase, build: BuildRecord): void | Promise<void>;
  /**
   * Stops the replay where it is (it can be resumed): the rebuild (checked every `pollMs`), the
   * verification, the hand-over, or the settling between pages.
   */
  signal?: AbortSignal;
  /** A rebuild that commits nothing for this long is given up (resumable); 5 minutes by default. */
  stallTimeoutMs?: number;
  pollMs?: number;
  /** Told what the switch waits for (the live projectors to stop, the rebuild to catch up with them). */
  onWait?(what: string): void;
  /** The hand-over of the live version, given up past it (see catchUpWithLiveVersion); 5 minutes by default. */
  handoverDeadlineMs?: number;
  /** Told verification's findings as soon as they are known (the switch, or a refusal, follows). */
  onVerified?(report: VerifyReport): void;
  /** Events verification folds in memory at once (see verifyRebuild). */
  eventsPerVerifyPass?: number;
}

export type ReplayResult =
  | {
      outcome: 'switched';
      build: BuildRecord;
      active: ActiveVersionRecord;
      /** Absent when this run found the build switched already (a replay stopped after its switch): it only settled. */
      verify?: VerifyReport;
      changeTimes: ChangeTimeReport;
      shipmentTimes: ShipmentTimeReport;
    }
  | {
      outcome: 'stopped';
      build: BuildRecord;
      /** Stopped while settling: the build is the active version already, its times not all settled. */
      switched?: boolean;
    }
  | { outcome: 'refused'; build: BuildRecord; verify: VerifyReport };

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

/** Per partition, the offsets the group has committed, and the topic's end offsets. */
async function groupProgress(kafka: KafkaClient, groupId: string, topic: string) {
  const lags = await withKafkaAdmin(kafka, (admin) => admin.partitionLags(groupId, topic));
  return { committed: new Map(lags.map((p) => [p.partition, p.end - p.lag])), ends: new Map(lags.map((p) => [p.partition, p.end])) };
}

/** Whether `error` is the rejection of a step stopped by `signal` (its reason). */
const stoppedBy = (signal: AbortSignal | undefined, error: unknown) => signal?.aborted === true && error === signal.reason;

/** `step`'s result, or undefined when it was stopped by `signal`. */
async function unlessStopped<T>(signal: AbortSignal | undefined, step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    if (stoppedBy(signal, error)) return undefined;
    throw error;
  }
}

const sum = (offsets: Map<number, bigint>) => [...offsets.values()].reduce((total, offset) => total + offset, 0n);

/** The rebuild's projector: the build's version and consumer group, carrying times over from the live version. */
async function startRebuildProjector(ctx: ReplayContext, build: BuildRecord, options: ReplayOptions): Promise<RunningProjector | undefined> {
  // Events the live version already sent to the dead-letter topic are not sent there again; read
  // at each start, so the switch's run knows those the live version sent during the rebuild.
  const alreadyDeadLettered = await deadLetteredSources(ctx.kafka, deadLetterTopic(ctx.config.topic), ctx.config.topic);
  try {
    const config = { ...configForVersion(ctx.config, build.version, build.previous), consumerGroup: build.consumerGroup };
    return await startProjector(config, ctx.logger, { signal: options.signal, alreadyDeadLettered });
  } catch (error) {
    if (options.signal?.aborted) return undefined; // stopped while a server was away
    throw error;
  }
}

/**
 * Runs the rebuild's consumer until its group has committed, on every partition, the end offset
 * the topic had when this wait began (under steady traffic the topic never stands still), or
 * until stopped.
 */
async function rebuildUntilCaughtUp(ctx: ReplayContext, build: BuildRecord, lock: ReplayLock, options: ReplayOptions): Promise<'caught-up' | 'stopped'> {
  const projector = await startRebuildProjector(ctx, build, options);
  if (!projector) return 'stopped';
  try {
    const { ends: target } = await groupProgress(ctx.kafka, build.consumerGroup, ctx.config.topic);
    const total = Number(sum(target));
    let lastDone = -1;
    let lastMove = Date.now();
    for (;;) {
      const { committed } = await groupProgress(ctx.kafka, build.consumerGroup, ctx.config.topic);
      const done = Number([...target].reduce((n, [partition, end]) => n + (committed.get(partition)! < end ? committed.get(partition)! : end), 0n));
      options.onProgress?.(done, total);
      if (done >= total) return 'caught-up';
      if (options.signal?.aborted) return 'stopped';
      throwIfLost(lock);
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

function throwIfLost(lock: ReplayLock): void {
  const lost = lock.lost();
  if (lost) throw lost;
}

/**
 * Makes the build the active version with nothing partners were shown missing from it: the
 * rebuild's consumer runs again while the live version's projectors are held, until the build
 * has every event the live version has; then the switch, from the database's clock.
 */
async function switchOver(ctx: ReplayContext, build: BuildRecord, lock: ReplayLock, options: ReplayOptions): Promise<ActiveVersionRecord | undefined> {
  const live = readModelCollections(ctx.db, build.previous);
  const rebuilt = readModelCollections(ctx.db, build.version);
  // What the live version showed since the rebuild began keeps its times in the build before the
  // switch: a partner may have been answered it from the live version, or not yet, and either way
  // must get it at the same time from the build. Most of it while the live version still moves
  // (a minute's margin for the clocks of this host and the database), the rest once it is held.
  const carried = await databaseTime(ctx.db);
  const carriedBefore = await unlessStopped(options.signal, async () => {
    await carryShownTimes(rebuilt, live, new Date(build.startedAt.getTime() - 60_000), options.signal);
    return true;
  });
  if (!carriedBefore) return undefined;
  const projector = await startRebuildProjector(ctx, build, options);
  if (!projector) return undefined;
  let level: boolean;
  try {
    const liveGroup = configForVersion(ctx.config, build.previous).consumerGroup;
    level = await catchUpWithLiveVersion(ctx.db, ctx.kafka, ctx.config.topic, build, liveGroup, {
      signal: options.signal,
      onWait: options.onWait,
      deadlineMs: options.handoverDeadlineMs,
      whileLevel: () => carryShownTimes(rebuilt, live, new Date(carried.getTime() - changeTimeOverlapMs)),
      check: () => throwIfLost(lock),
    });
  } finally {
    await projector.stop();
  }
  if (!level) return undefined;
  if (!(await holdPreviousVersion(ctx.db, build, holdMs, false))) {
    throw new HandoverTimeoutError(`the hold on version ${build.previous} lapsed before the switch (its projectors may have gone on); run ossn replay again`);
  }
  // The hold stays until it lapses: a projector that read the old active version just before
  // the switch still finds its version held, and follows.
  throwIfLost(lock);
  return activateBuild(ctx.db, build);
}

async function carryShownTimes(rebuilt: ReadModelCollections, live: ReadModelCollections, since: Date, signal?: AbortSignal): Promise<void> {
  await settleChangeTimes(rebuilt, live, { liveChangedSince: since, stamp: false, signal });
  await settleShipmentTimes(rebuilt, live, { liveChangedSince: since, stamp: false, signal });
}

/**
 * `ossn replay`: rebuilds the read models from the beginning of the topic into the next version
 * (or resumes the rebuild in progress) while the active version keeps serving, one replay at a
 * time (a lock in the store). Once the rebuild has caught up with the topic it stops and is
 * checked against a fresh fold of the events it consumed. Then the switch: the live version's
 * projectors stop writing it, the rebuild catches up with what they wrote, and the build becomes
 * the active version (query services and `ossn projector` follow within seconds; the projector
 * goes on from the rebuild's consumer group). Last, its change and visible times are settled
 * against the version it replaced: what that version showed keeps its time, what it did not is
 * stamped after the switch. A stopped or refused rebuild stays a build: it never becomes active
 * but by a later `ossn replay` that completes it; every step can be killed and run again.
 */
export async function replay(ctx: ReplayContext, options: ReplayOptions = {}): Promise<ReplayResult> {
  return withReplayLock(ctx, (lock) => replayHoldingLock(ctx, lock, options));
}

/** Whatever changes versions runs under the one replay lock. */
async function withReplayLock<T>(ctx: ReplayContext, work: (lock: ReplayLock) => Promise<T>): Promise<T> {
  const lock = await acquireReplayLock(ctx.db, ctx.config.replayLockTtlMs);
  try {
    return await work(lock);
  } finally {
    await lock.release();
  }
}

async function replayHoldingLock(ctx: ReplayContext, lock: ReplayLock, options: ReplayOptions): Promise<ReplayResult> {
  const { build } = await beginOrResumeBuild(ctx);
  const live = readModelCollections(ctx.db, build.previous);
  const rebuilt = readModelCollections(ctx.db, build.version);

  let active = await readActiveVersion(ctx.db, ctx.config.store.readModelVersion);
  let verify: VerifyReport | undefined;
  if (active.version !== build.version) {
    await options.onPhase?.('rebuilding', build);
    if ((await rebuildUntilCaughtUp(ctx, build, lock, options)) === 'stopped') return { outcome: 'stopped', build };

    await options.onPhase?.('verifying', build);
    const { committed } = await groupProgress(ctx.kafka, build.consumerGroup, ctx.config.topic);
    verify = await unlessStopped(options.signal, () =>
      verifyRebuild(ctx.kafka, ctx.config.topic, rebuilt, { until: committed, eventsPerPass: options.eventsPerVerifyPass, signal: options.signal }),
    );
    if (!verify) return { outcome: 'stopped', build };
    options.onVerified?.(verify);
    if (!verified(verify)) return { outcome: 'refused', build, verify };

    throwIfLost(lock);
    if (options.signal?.aborted) return { outcome: 'stopped', build };
    await options.onPhase?.('switching', build);
    const switched = await switchOver(ctx, build, lock, options);
    if (!switched) return { outcome: 'stopped', build };
    active = switched;
  }

  throwIfLost(lock);
  await options.onPhase?.('settling', build);
  // Stopped, the build stays recorded: the next replay finds it active and settles it.
  const settled = await unlessStopped(options.signal, async () => ({
    changeTimes: await settleChangeTimes(rebuilt, live, { stamp: true, signal: options.signal }),
    shipmentTimes: await settleShipmentTimes(rebuilt, live, { stamp: true, switchedAt: active.activatedAt, signal: options.signal }),
  }));
  if (!settled) return { outcome: 'stopped', build, switched: true };
  const { changeTimes, shipmentTimes } = settled;
  await forgetBuild(ctx.db);
  return { outcome: 'switched', build, active, verify, changeTimes, shipmentTimes };
}

/** Throws a stopped or refused rebuild away: its collections, its consumer group, its record. */
export async function discardBuild(ctx: ReplayContext): Promise<BuildRecord | undefined> {
  return withReplayLock(ctx, () => discardBuildHoldingLock(ctx));
}

async function discardBuildHoldingLock(ctx: ReplayContext): Promise<BuildRecord | undefined> {
  const build = await readBuild(ctx.db);
  if (!build) return undefined;
  // A build switched to already (a replay killed while settling) is what partners read now.
  const active = await readActiveVersion(ctx.db, ctx.config.store.readModelVersion);
  if (active.version === build.version) {
    throw new Error(`version ${build.version} is the active version already (a replay stopped after its switch); run ossn replay to finish it, nothing is discarded`);
  }
  await dropVersion(ctx, build.version, build.consumerGroup);
  await forgetBuild(ctx.db);
  return build;
}

/** Drops the version the last switch replaced (its collections and consumer group). */
export async function dropPrevious(ctx: ReplayContext): Promise<number | undefined> {
  return withReplayLock(ctx, () => dropPreviousHoldingLock(ctx));
}

async function dropPreviousHoldingLock(ctx: ReplayContext): Promise<number | undefined> {
  // A build switched to but not settled yet still reads the previous version's times.
  const build = await readBuild(ctx.db);
  if (build) throw new Error(`a rebuild of version ${build.version} is in progress (or switched to and not settled); run ossn replay to finish it first`);
  const active = await readActiveVersion(ctx.db, ctx.config.store.readModelVersion);
  if (active.previous === undefined || active.previous === active.version) return undefined;
  await dropVersion(ctx, active.previous, configForVersion(ctx.config, active.previous).consumerGroup);
  await forgetPrevious(ctx.db);
  return active.previous;
}

async function dropVersion(ctx: ReplayContext, version: number, consumerGroup: string): Promise<void> {
  // The group first: Kafka refuses to delete one with members (a projector still on that version),
  // and then nothing is dropped under it.
  await withKafkaAdmin(ctx.kafka, async (admin) => {
    if (!(await admin.groupIds()).includes(consumerGroup)) return;
    if ((await admin.memberCount(consumerGroup)) > 0) throw new Error(`consumer group ${consumerGroup} of version ${version} still has members; stop or switch them first`);
    await admin.deleteGroup(consumerGroup);
  });
  await dropVersionCollections(ctx.db, version);
}
