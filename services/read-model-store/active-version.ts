import type { Collection, Db } from 'mongodb';

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

/** Makes the build's version the active one and ends the build, in this order (a crash between leaves a build that is already active: resumable, never lost). */
export async function activateBuild(db: Db, build: BuildRecord): Promise<ActiveVersionRecord> {
  const record: ActiveVersionRecord = { _id: 'active', version: build.version, previous: build.previous, activatedAt: new Date() };
  await versionRecords(db).replaceOne({ _id: 'active' }, record, { upsert: true });
  await forgetBuild(db);
  return record;
}

/** After the previous version's collections are dropped, the record no longer names it. */
export async function forgetPrevious(db: Db): Promise<void> {
  await versionRecords(db).updateOne({ _id: 'active' }, { $unset: { previous: '' } });
}
