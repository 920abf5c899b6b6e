import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { withDeadline } from '../../plumbing/lifecycle/deadline.js';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

interface ReplayLockRecord {
  _id: 'replay';
  holder: string;
  /** The database's clock; a replay that stops renewing (killed) gives the lock up at this time. */
  expiresAt: Date;
}

/** Another replay holds the lock. */
export class ReplayLockedError extends OssnError {
  override readonly name = 'ReplayLockedError';
  constructor(
    readonly holder: string,
    readonly expiresAt: Date,
  ) {
    super(ErrorCodes.REPLAY_LOCKED, `another replay is running (${holder}); if it is gone, its lock lapses at ${expiresAt.toISOString()}`);
  }
}

export interface ReplayLock {
  readonly holder: string;
  /** Thrown from renewals that failed: the lock was lost (taken over after lapsing), so the replay must stop. */
  lost(): Error | undefined;
  release(): Promise<void>;
}

const lockTtlMs = 60_000;
const renewEveryMs = 15_000;

const locks = (db: Db) => db.collection<ReplayLockRecord>('replay_lock');

/**
 * One replay at a time: a record in the store that the holder renews every 15 s and that lapses
 * 60 s after the last renewal (the database's clock), so a replay killed on another machine
 * never holds it for ever.
 */
export async function acquireReplayLock(db: Db, ttlMs = lockTtlMs): Promise<ReplayLock> {
  const holder = `${hostname()} pid ${process.pid} ${randomBytes(3).toString('hex')}`;
  // One atomic update: a lock absent or lapsed becomes ours, a live one is left as it is.
  const free = { $lt: [{ $ifNull: ['$expiresAt', new Date(0)] }, '$$NOW'] };
  const current = await locks(db).findOneAndUpdate(
    { _id: 'replay' },
    [{ $set: { holder: { $cond: [free, holder, '$holder'] }, expiresAt: { $cond: [free, { $add: ['$$NOW', ttlMs] }, '$expiresAt'] } } }],
    { upsert: true, returnDocument: 'after', includeResultMetadata: false },
  );
  if (current && current.holder !== holder) throw new ReplayLockedError(current.holder, current.expiresAt);
  let lost: Error | undefined;
  const every = Math.min(renewEveryMs, ttlMs / 4);
  let renewing = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      // The store away or hung: given up within a tick, tried again at the next, well before the lock lapses.
      const renewed = await withDeadline(
        locks(db).updateOne({ _id: 'replay', holder }, [{ $set: { expiresAt: { $add: ['$$NOW', ttlMs] } } }]),
        every,
        'renewing the replay lock',
      ).catch(() => undefined);
      if (renewed?.matchedCount === 0) lost = new OssnError(ErrorCodes.REPLAY_LOCK_LOST, 'the replay lock lapsed and was taken by another replay');
    });
  }, every);
  timer.unref();
  return {
    holder,
    lost: () => lost,
    async release() {
      clearInterval(timer);
      await renewing;
      // A store away or hung: the lock is left to lapse.
      await withDeadline(locks(db).deleteOne({ _id: 'replay', holder }), 5_000, 'releasing the replay lock').catch(() => undefined);
    },
  };
}
