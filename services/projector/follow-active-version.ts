import type { ProjectorConfig } from '../config/config.js';
import type { Logger } from '../plumbing/logging/logger.js';
import type { ProjectorMetrics } from '../plumbing/metrics/projector-metrics.js';
import { mayWrite, versionState } from '../adapters/mongodb/active-version.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { untilAnswered } from '../plumbing/lifecycle/until-answered.js';
import { startProjector, type RunningProjector } from './run.js';
import { configForVersion } from './versions.js';
import { everyTickOneAtATime } from './one-check-at-a-time.js';

export interface FollowingProjector extends RunningProjector {
  /** The version kept current now. */
  version(): number;
  /** True once the consumer of that version has joined its group. */
  joined(): boolean;
  /** Answers when the store answers. */
  ping(): Promise<void>;
}

/**
 * `ossn projector`: keeps the active read-model version current and follows it when `ossn replay`
 * switches (checked every `checkMs`): it stops consuming for the old version and goes on with the
 * new version's consumer group from where the rebuild left it, carrying change times over from
 * the version it left (events it had shown there and the rebuild had not yet reached).
 *
 * While a replay holds the active version (hands it over: see catchUpWithLiveVersion), it stops
 * writing it and waits: for the switch, or for the hold to lapse (the replay gone), then goes on.
 */
export async function startFollowingProjector(
  config: ProjectorConfig,
  logger: Logger,
  options: { metrics?: ProjectorMetrics; checkMs?: number } = {},
): Promise<FollowingProjector> {
  // A store away at start delays the start (each wait logged); it never ends the process.
  const { mongo, state } = await untilAnswered(
    'MongoDB',
    async () => {
      // Each check (and readiness ping) fails within the deadline when the store hangs: a stop
      // waits for the check in progress.
      const client = await connectMongo(config.store.mongodbUri, 'ossn-projector-versions', { deadlineMs: 2_000 });
      try {
        return { mongo: client, state: await versionState(client.db(config.store.database), config.store.readModelVersion) };
      } catch (error) {
        await client.close().catch(() => undefined);
        throw error;
      }
    },
    logger,
  );
  const db = mongo.db(config.store.database);
  let version = state.active.version;
  let joined = false;
  // Stopping gives up a start that waits for a server away.
  const stopped = new AbortController();
  const start = () => {
    const kept = version;
    return startProjector(configForVersion(config, kept), logger, {
      // Checked before every batch: a projector that started just as a replay took its version over does not write it.
      writeFence: () => mayWrite(db, kept, config.store.readModelVersion),
      metrics: options.metrics,
      onJoin: () => (joined = true),
      onLeave: () => (joined = false),
      signal: stopped.signal,
    });
  };
  let running: RunningProjector | undefined = state.held === version ? undefined : await start();
  if (!running) logger.info({ version }, 'a replay is taking this read-model version over; waiting for its switch');
  options.metrics?.activeVersion.set(version);

  let stopping = false;
  const halt = async () => {
    joined = false;
    await running?.stop();
    running = undefined;
  };
  const follow = async () => {
    // One read of both records: the active version and the hold cannot be seen from two moments.
    const {
      active: { version: active },
      held: heldVersion,
    } = await versionState(db, config.store.readModelVersion);
    const held = heldVersion === version;
    if (stopping) return;
    if (active === version) {
      if (held && running) {
        logger.info({ version }, 'a replay is taking this read-model version over; stopped writing it until its switch');
        await halt();
      } else if (!held && !running && !stopping) {
        logger.info({ version }, 'no replay holds this read-model version (any more); writing it again');
        running = await start();
      }
      return;
    }
    logger.info({ from: version, to: active }, 'following the active read-model version');
    await halt();
    // Nothing to carry over from the version left: the replay's hand-over made this one show all it
    // showed before the switch, and the write fence kept it unwritten since.
    version = active;
    options.metrics?.activeVersion.set(version);
    if (!stopping) running = await start();
  };
  // One check at a time (a tick while one runs, say a restart waiting on Kafka, is skipped); a
  // failed one (store or Kafka away) is tried again at the next tick.
  const following = everyTickOneAtATime(follow, options.checkMs ?? 2_000, (error: unknown) => {
    if (!stopping) logger.warn({ err: error }, 'following the active read-model version failed; retrying');
  });

  return {
    version: () => version,
    joined: () => joined && running !== undefined,
    ping: async () => {
      await db.command({ ping: 1 });
    },
    async stop() {
      stopping = true;
      stopped.abort();
      await following.stop();
      await running?.stop();
      await mongo.close();
    },
  };
}
