import type { Consumer, Kafka } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopStepWithin } from '../../plumbing/lifecycle/bounded-stop.js';
import type { Logger } from '../../plumbing/logging/logger.js';
import type { SourceMessage } from './messages.js';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

export interface BatchContext {
  /** Keeps group membership alive while a batch waits on an outage. */
  heartbeat(): Promise<void>;
  /** True once the consumer is stopping or the batch was reassigned; the batch must then be abandoned. */
  isStopping(): boolean;
  /**
   * Aborted when a stop no longer waits for the batch: work that waits on a server (a hung store
   * operation, a retry's pause) is given up then, and the batch stays uncommitted.
   */
  signal?: AbortSignal;
}

export type BatchHandler = (messages: SourceMessage[], context: BatchContext) => Promise<void>;

/** Thrown by a handler that gave up a batch because the consumer is stopping; its offsets stay uncommitted. */
export class BatchAbandoned extends OssnError {
  /** `cause`: the failure of the last try, when the stop came while it was being retried. */
  constructor(options?: ErrorOptions) {
    super(ErrorCodes.BATCH_ABANDONED, 'batch abandoned: consumer stopping', options);
    this.name = 'BatchAbandoned';
  }
}

export interface BatchConsumer {
  /**
   * Stops after the batches in progress, waiting for them at most `abandonBatchesAfterMs` (a batch
   * still waiting on a server then is abandoned uncommitted), and for the whole stop (commits,
   * leaving the group) at most `stopTimeoutMs`: what is not done by then is logged and left.
   */
  stop(): Promise<void>;
}

/** A batch being handled, for the log when a stop abandons it. */
interface BatchInFlight {
  partition: number;
  firstOffset: string;
  lastOffset: string;
  stage: 'projecting' | 'committing';
}

/**
 * How often a consumer busy with a long batch heartbeats. kafkajs sends a heartbeat only when
 * `heartbeatIntervalMs` has passed since its last one, so a keep-alive that asks every interval
 * skips every other tick (the last one ended a little after it began): heartbeats then came a
 * whole 6 s apart, and with the smallest session the broker allows (6 s) the member was expelled
 * mid-batch. Asking twice an interval, with the interval at most a third of the session, keeps the
 * longest silence (interval + tick + one request's time) within half the session.
 */
export function heartbeatTimings(sessionTimeoutMs: number): { heartbeatIntervalMs: number; keepAliveEveryMs: number } {
  const heartbeatIntervalMs = Math.min(3_000, Math.floor(sessionTimeoutMs / 3));
  return { heartbeatIntervalMs, keepAliveEveryMs: Math.floor(heartbeatIntervalMs / 2) };
}

const FETCH_MAX_WAIT_MS = 1_000;

/** Batches (of different partitions) handled at once unless told otherwise. */
export const defaultPartitionsConsumedConcurrently = 3;

export interface ConsumeOptions {
  groupId: string;
  topic: string;
  logger: Logger;
  partitionsConsumedConcurrently?: number;
  /** Silence after which the group counts the consumer gone; 30 s by default. */
  sessionTimeoutMs?: number;
  /**
   * Asked before each consumer this creates joins the group: the first, and each replacement of
   * one kafkajs gave up (kafkajs's own rejoins, after a rebalance or a retriable crash, are not
   * asked). A rejection keeps it out: the first's goes to the caller; a replacement's is logged
   * and the replacement tried again later.
   */
  beforeJoin?: () => Promise<void>;
  /** Called each time the consumer has joined its group (readiness). */
  onJoin?: () => void;
  /** Called when the consumer crashed or stopped: it is no longer a member until the next join. */
  onLeave?: () => void;
  /** How long a stop lets the batches in progress finish before it abandons them; 2 s by default. */
  abandonBatchesAfterMs?: number;
  /** The longest a stop waits for the consumer to finish its commits and leave the group; 5 s by default. */
  stopTimeoutMs?: number;
  /**
   * The most a fetch brings of one partition (a batch is at most about this large) and of all
   * partitions together; kafkajs's 1 MiB and 10 MiB when absent. Larger batches write a sales
   * order's documents once for more of its events (docs/operations.md).
   */
  maxBytesPerPartition?: number;
  maxBytes?: number;
}

/**
 * Feeds whole batches (one partition each) to the handler and commits a batch's offsets only
 * after the handler has returned: at-least-once delivery, made exactly-once in effect by the
 * read models' sequence guard.
 */
export async function consumeBatches(kafka: Kafka, options: ConsumeOptions, handler: BatchHandler): Promise<BatchConsumer> {
  const sessionTimeout = options.sessionTimeoutMs ?? 30_000;
  const { heartbeatIntervalMs, keepAliveEveryMs } = heartbeatTimings(sessionTimeout);
  const { logger } = options;
  const inFlight = new Set<BatchInFlight>();
  const abandon = new AbortController();
  let stopping = false;
  let replaceAfterMs = replaceGivenUpAfterMs.first;
  let replacing: NodeJS.Timeout | undefined;
  let lastReplacedAt = 0;

  /** A new kafkajs consumer in the group, running: resolves once kafkajs has begun its run (joined, or crashed trying). */
  const join = async (): Promise<Consumer> => {
    await options.beforeJoin?.();
    // A stop that came meanwhile (it waits for a joining replacement only so long) is not joined after.
    if (stopping) throw new Error('the consumer is stopping');
    const consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout,
      heartbeatInterval: heartbeatIntervalMs,
      // A stop waits for the fetch in progress: with nothing new to read the broker holds it this
      // long (kafkajs's default, 5 s, took half of the stop's deadline). Events still arrive at once.
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      ...(options.maxBytesPerPartition === undefined ? {} : { maxBytesPerPartition: options.maxBytesPerPartition }),
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    });
    if (options.onJoin) consumer.on(consumer.events.GROUP_JOIN, () => options.onJoin?.());
    if (options.onLeave) for (const event of [consumer.events.CRASH, consumer.events.STOP]) consumer.on(event, () => options.onLeave?.());
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) replaceGivenUp(payload.error);
    });
    await consumer.connect();
    try {
      if (stopping) throw new Error('the consumer is stopping');
      await subscribeAndRun(consumer, options, handler, { inFlight, abandon: abandon.signal, keepAliveEveryMs, isStopping: () => stopping });
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    return consumer;
  };

  let current: Promise<Consumer> = join();
  await current;
  /**
   * kafkajs gives a consumer up for good on an error it does not count retriable, such as the
   * commit of a member the group expelled while a batch kept the process from heartbeating ("The
   * coordinator is not aware of this member"): it then neither fetches nor rejoins, and the process
   * would stay up consuming nothing. A new consumer joins in its place (its batch, uncommitted,
   * comes again), again after a longer pause while each one fails.
   */
  function replaceGivenUp(error: unknown): void {
    if (stopping) return;
    // Backing off while replacements fail soon after they start (a join refused for good, say);
    // one that ran a while starts the back-off over.
    const soon = Date.now() - lastReplacedAt < 2 * replaceGivenUpAfterMs.most;
    replaceAfterMs = soon ? Math.min(replaceAfterMs * 2, replaceGivenUpAfterMs.most) : replaceGivenUpAfterMs.first;
    logger.error({ err: error, groupId: options.groupId, retryInMs: replaceAfterMs }, 'the Kafka consumer stopped for good; a new one joins the group');
    clearTimeout(replacing);
    replacing = setTimeout(() => {
      replacing = undefined;
      if (stopping) return;
      lastReplacedAt = Date.now();
      current = join();
      // A join that crashes is replaced through its CRASH event; one that fails before it runs, here.
      current.catch(replaceGivenUp);
    }, replaceAfterMs);
  }

  const batches = () => ({ batchesInFlight: [...inFlight] });
  return {
    async stop() {
      stopping = true;
      clearTimeout(replacing);
      if (inFlight.size > 0) logger.info(batches(), 'stopping after the batches in flight');
      // kafkajs waits for the batches in progress before it leaves the group; one that waits on a
      // server away would hold the stop for as long as the outage lasts.
      const abandoning = setTimeout(() => abandon.abort(), options.abandonBatchesAfterMs ?? 2_000);
      try {
        // A replacement still joining is waited for within the same deadline, then left too.
        const leave = async () => {
          const consumer = await current.catch(() => undefined);
          if (!consumer) return;
          // kafkajs skips, without a word, the commit of a batch that ends after its stop began: the
          // batches in flight end first (or are abandoned), no new one starts, then it stops.
          try {
            consumer.pause([{ topic: options.topic }]);
          } catch {
            // one kafkajs gave up fetches nothing
          }
          while (inFlight.size > 0 && !abandon.signal.aborted) await sleep(10);
          await consumer.disconnect();
        };
        const left = await stopStepWithin('stopping the consumer (batches, commits, leaving the group)', leave, options.stopTimeoutMs ?? 5_000, logger, batches);
        if (!left) {
          abandon.abort();
          logger.warn(
            { groupId: options.groupId },
            'left without a word to the group: batches not committed come again, to this group\'s next member (after the session timeout)',
          );
        }
      } finally {
        clearTimeout(abandoning);
      }
    },
  };
}

/** The pause before a consumer kafkajs gave up is replaced: the first, and the longest after failures in a row. */
const replaceGivenUpAfterMs = { first: 1_000, most: 30_000 };

async function subscribeAndRun(
  consumer: Consumer,
  options: ConsumeOptions,
  handler: BatchHandler,
  { inFlight, abandon, keepAliveEveryMs, isStopping }: { inFlight: Set<BatchInFlight>; abandon: AbortSignal; keepAliveEveryMs: number; isStopping: () => boolean },
): Promise<void> {
  await consumer.subscribe({ topic: options.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? defaultPartitionsConsumedConcurrently,
    eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset, pause }) => {
      if (batch.messages.length === 0 || !isRunning() || isStale()) return;
      // Once a stop began, a batch left unresolved comes again to the group's next member; paused,
      // it is not fetched again meanwhile (by a consumer kafkajs restarted since the stop paused the topic, too).
      if (isStopping()) {
        pause();
        return;
      }
      const messages: SourceMessage[] = batch.messages.map((m) => ({
        topic: batch.topic,
        partition: batch.partition,
        offset: m.offset,
        key: m.key,
        value: m.value,
        timestamp: m.timestamp,
      }));
      // A batch may take longer than the session timeout (a slow store, a large batch): keep the
      // membership alive meanwhile, or the group rebalances and the batch's commit is refused.
      const keepAlive = setInterval(() => heartbeat().catch(() => undefined), keepAliveEveryMs);
      const handled: BatchInFlight = { partition: batch.partition, firstOffset: batch.firstOffset() ?? '', lastOffset: batch.lastOffset(), stage: 'projecting' };
      inFlight.add(handled);
      try {
        try {
          await handler(messages, { heartbeat, isStopping: () => isStopping() || !isRunning() || isStale() || abandon.aborted, signal: abandon });
        } catch (error) {
          if (error instanceof BatchAbandoned) {
            options.logger.info({ partition: handled.partition, firstOffset: handled.firstOffset, lastOffset: handled.lastOffset }, 'batch abandoned uncommitted: it comes again');
            return;
          }
          throw error;
        } finally {
          clearInterval(keepAlive);
        }
        // Resolving moves the fetch position on; committing makes it survive a restart.
        handled.stage = 'committing';
        resolveOffset(batch.lastOffset());
        const next = (BigInt(batch.lastOffset()) + 1n).toString();
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
      } finally {
        inFlight.delete(handled);
      }
    },
  });
}
