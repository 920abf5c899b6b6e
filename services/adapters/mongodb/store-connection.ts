import type { MongoClient } from 'mongodb';
import type { Logger } from '../../plumbing/logging/logger.js';
import { untilAnswered } from '../../plumbing/lifecycle/until-answered.js';
import { DeadlineExceededError, withDeadline } from '../../plumbing/lifecycle/deadline.js';
import { createMongoClient, type MongoClientOptions } from './connect.js';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';
import type { CappedBatches } from '../../../contracts/lookup-answers-v2.js';

const storeOperation = 'a store operation';

export class StoreNotConnectedError extends OssnError {
  override readonly name = 'StoreNotConnectedError';
  constructor() {
    super(ErrorCodes.STORE_NOT_CONNECTED, 'the store has not answered yet');
  }
}

/**
 * A MongoDB client that makes its first connection in the background, trying until the server
 * answers, so that a service started while the store is away starts all the same. Until then
 * `whenConnected` refuses at once: an operation would make the driver connect by itself, and a
 * failed automatic first connection closes the client for good. Once connected, the driver
 * reconnects by itself.
 */
export class StoreConnection {
  readonly client: MongoClient;
  /** Resolves once connected (or closed before that). */
  readonly connected: Promise<void>;
  private isConnected = false;
  private readonly stop = new AbortController();

  constructor(
    uri: string,
    appName: string,
    logger: Logger,
    private readonly options: MongoClientOptions = {},
  ) {
    this.client = createMongoClient(uri, appName, options);
    const connect = async () => void (await this.client.connect());
    this.connected = untilAnswered('the store (MongoDB)', connect, logger, { maxDelayMs: 5_000, signal: this.stop.signal }).then(
      () => {
        this.isConnected = true;
      },
      () => undefined, // closed before the store answered
    );
  }

  /**
   * `operation`, once the first connection is made (StoreNotConnectedError before), failed once the
   * deadline has passed: its round trips each have the deadline too, so a few of them cannot add up.
   * The signal it is given aborts at the deadline and with `signal`, so that its reads are
   * cancelled (cursors closed), not only abandoned.
   */
  whenConnected<T>(operation: (signal?: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!this.isConnected) return Promise.reject(new StoreNotConnectedError());
    const { deadlineMs } = this.options;
    if (!deadlineMs) return operation(signal);
    const { controller, release } = followingCaller(signal);
    return withinDeadline(operation(controller.signal), controller, deadlineMs).finally(release);
  }

  /**
   * whenConnected for a lookup that hands on its answer in batches as it reads it: its start and
   * each batch read have the deadline (a partner that takes the bytes slowly is not the store's
   * lateness: the partner port's idle timeout bounds it). The signal `operation` is given aborts
   * past a deadline and with `signal` until the batches end; ending them early ends their reads.
   */
  async whenConnectedInBatches<T>(operation: (signal?: AbortSignal) => Promise<AsyncIterable<T>>, signal?: AbortSignal): Promise<AsyncIterable<T>> {
    const { batches } = await this.answerInBatches(async (cancel) => ({ batches: await operation(cancel) }), signal);
    return batches;
  }

  /** whenConnectedInBatches for a capped answer: its `more`, known before its batches, is handed on as it is. */
  whenConnectedInCappedBatches<T>(operation: (signal?: AbortSignal) => Promise<CappedBatches<T>>, signal?: AbortSignal): Promise<CappedBatches<T>> {
    return this.answerInBatches(operation, signal);
  }

  /** The answer `operation` gives, its batches read as whenConnectedInBatches says; the rest of it as it is. */
  private async answerInBatches<A extends { batches: AsyncIterable<unknown> }>(operation: (signal?: AbortSignal) => Promise<A>, signal?: AbortSignal): Promise<A> {
    if (!this.isConnected) throw new StoreNotConnectedError();
    const { deadlineMs } = this.options;
    if (!deadlineMs) return operation(signal);
    const { controller: work, release } = followingCaller(signal);
    const step = <R>(pending: Promise<R>): Promise<R> => withinDeadline(pending, work, deadlineMs);
    let answer: A;
    try {
      answer = await step(operation(work.signal));
    } catch (error) {
      release();
      throw error;
    }
    const { batches } = answer;
    return {
      ...answer,
      batches: (async function* () {
        const iterator = batches[Symbol.asyncIterator]();
        try {
          for (;;) {
            const next = await step(iterator.next());
            if (next.done) return;
            yield next.value;
          }
        } finally {
          release();
          work.abort(new Error('the answer ended'));
          await iterator.return?.();
        }
      })(),
    };
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.client.close();
  }
}

/** A controller aborted with `signal` too (with its reason), and how to stop following `signal`. */
function followingCaller(signal?: AbortSignal): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  const onCaller = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onCaller, { once: true });
  if (signal?.aborted) onCaller();
  return { controller, release: () => signal?.removeEventListener('abort', onCaller) };
}

/**
 * `pending`, failed once `deadlineMs` has passed, when `controller` is aborted too, so that the
 * reads given its signal are cancelled (cursors closed), not only abandoned. A plain timer, held
 * until `pending` ends: an AbortSignal.timeout only AbortSignal.any refers to can be collected
 * before it fires (nodejs/node#57736).
 */
function withinDeadline<R>(pending: Promise<R>, controller: AbortController, deadlineMs: number): Promise<R> {
  const timer = setTimeout(() => controller.abort(new DeadlineExceededError(storeOperation, deadlineMs, ErrorCodes.STORE_TIMEOUT)), deadlineMs);
  return withDeadline(pending, deadlineMs, storeOperation, ErrorCodes.STORE_TIMEOUT).finally(() => clearTimeout(timer));
}
