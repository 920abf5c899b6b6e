import type { Collection, Db } from 'mongodb';
import { withDeadline } from '../../plumbing/lifecycle/deadline.js';

/**
 * Which read-model version the query services answer from, and the rebuild in progress, if any.
 * Kept in the store beside the read models, so that every query service and projector finds it
 * without a restart or a changed variable; absent until the first `ossn replay` switches.
 */
export interface ActiveVersionRecord {
  _id: 'active';
  version: number;
  /** The version it replaced; kept until `ossn replay --drop-previous`. */
  previous?: number;
  activatedAt: Date;
}

export interface BuildRecord {
  _id: 'build';
  version: number;
  /** The active version when the rebuild began: its change times are carried over. */
  previous: number;
  consumerGroup: string;
  startedAt: Date;
  /**
   * Set while the replay takes the live version over: projectors of `previous` stop writing it
   * until this time (the database's clock) and go on after it, should the replay be gone.
   */
  handoverUntil?: Date;
}

type VersionRecord = ActiveVersionRecord | BuildRecord;

const versionsCollectionName = 'read_model_versions';

export function versionRecords(db: Db): Collection<VersionRecord> {
  return db.collection<VersionRecord>(versionsCollectionName);
}

/** The active version: the recorded one, or `fallback` (READ_MODEL_VERSION) before any switch. */
export async function readActiveVersion(db: Db, fallback: number): Promise<ActiveVersionRecord> {
  const record = await versionRecords(db).findOne({ _id: 'active' });
  return (record as ActiveVersionRecord | null) ?? { _id: 'active', version: fallback, activatedAt: new Date(0) };
}

export async function readBuild(db: Db): Promise<BuildRecord | undefined> {
  return ((await versionRecords(db).findOne({ _id: 'build' })) as BuildRecord | null) ?? undefined;
}

export async function recordBuild(db: Db, build: Omit<BuildRecord, '_id'>): Promise<BuildRecord> {
  const record: BuildRecord = { _id: 'build', ...build };
  await versionRecords(db).replaceOne({ _id: 'build' }, record, { upsert: true });
  return record;
}

export async function forgetBuild(db: Db): Promise<void> {
  await versionRecords(db).deleteOne({ _id: 'build' });
}

/**
 * Asks the projectors of the build's previous version to stop writing it for `ms`, or extends a
 * request still in force. False when the request has lapsed (a projector may have gone on): the
 * hand-over then starts again. Times are the database's, as every projector reads them.
 */
export async function holdPreviousVersion(db: Db, build: BuildRecord, ms: number, first: boolean): Promise<boolean> {
  const inForce = { $gt: ['$handoverUntil', '$$NOW'] };
  const filter = first ? { _id: 'build' as const, version: build.version } : { _id: 'build' as const, version: build.version, $expr: inForce };
  // A store away or hung fails the renewal well before the hold would lapse, never waits past it.
  const result = await withDeadline(versionRecords(db).updateOne(filter, [{ $set: { handoverUntil: { $add: ['$$NOW', ms] } } }]), ms / 4, 'holding the previous version');
  return result.matchedCount === 1;
}

/** Ends the hold: the previous version's projectors go on (a hand-over given up). */
export async function releasePreviousVersion(db: Db, build: BuildRecord): Promise<void> {
  await withDeadline(versionRecords(db).updateOne({ _id: 'build', version: build.version }, { $unset: { handoverUntil: '' } }), 5_000, 'releasing the hold');
}

/**
 * The active version (`fallback` before any switch) and the version a replay holds now, if any
 * (its projectors must not write it): one read of both records, with the database's clock.
 */
export async function versionState(db: Db, fallback: number): Promise<{ active: ActiveVersionRecord; held: number | undefined }> {
  const records = await versionRecords(db)
    .find({ _id: { $in: ['active', 'build'] } }, { projection: { version: 1, previous: 1, activatedAt: 1, held: { $gt: ['$handoverUntil', '$$NOW'] } } })
    .toArray();
  const record = records.find((r) => r._id === 'active');
  const active: ActiveVersionRecord = record
    ? { _id: 'active', version: record.version, activatedAt: (record as Partial<ActiveVersionRecord>).activatedAt ?? new Date(0) }
    : { _id: 'active', version: fallback, activatedAt: new Date(0) };
  const build = records.find((r) => r._id === 'build' && (r as { held?: boolean }).held === true);
  return { active, held: build?.previous };
}

/** Whether the projectors of `version` may write it now: it is the active version and no replay holds it. */
export async function mayWrite(db: Db, version: number, fallback: number): Promise<boolean> {
  const { active, held } = await versionState(db, fallback);
  return active.version === version && held !== version;
}

/**
 * Makes the build's version the active one, from the database's clock. The build record stays
 * until its times are settled (forgetBuild): a replay run again then finds the build active and
 * only finishes it.
 */
export async function activateBuild(db: Db, build: BuildRecord): Promise<ActiveVersionRecord> {
  const records = versionRecords(db);
  await records.updateOne({ _id: 'active' }, [{ $set: { version: build.version, previous: build.previous, activatedAt: '$$NOW' } }], { upsert: true });
  return readActiveVersion(db, build.previous);
}

/** After the previous version's collections are dropped, the record no longer names it. */
export async function forgetPrevious(db: Db): Promise<void> {
  await versionRecords(db).updateOne({ _id: 'active' }, { $unset: { previous: '' } });
}
