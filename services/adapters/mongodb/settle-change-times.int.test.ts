// A rebuild with contract v2 events over a version built before 2.0.0 (oss-osn-2.0.0.md §6, §9.3):
// 1.0.0 queryType 3 pollers are shown nothing new by it, though the v2 events moved the
// sequences; only a status the live version did not show is news. Against the real server, by both
// ways a rebuild's times are carried: at its writes (writeEffects with the live version) and by
// settling after the switch (settleChangeTimes).
import type { Db, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderStatusV2Query } from '../../../contracts/lookups.js';
import type { OrderStatusState } from '../../../projections/state.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { changeTimeOverlapMs } from './changed-since.js';
import { connectMongo } from './connect.js';
import { documentId, ensureIndexes, readModelCollections, type ReadModelCollections } from './documents.js';
import { MongoOrderLookups } from './lookups.js';
import { writeEffects } from './writes.js';
import { settleChangeTimes } from './settle-change-times.js';

let mongo: MongoClient;
let db: Db;
beforeAll(async () => {
  mongo = await connectMongo(testEnvironment().mongodbUri, 'change-times-test');
});
afterAll(async () => {
  await db?.dropDatabase();
  await mongo?.close();
});

const validTimestamp = new Date('2026-11-01T10:00:00Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const serverNow = async () => ((await mongo.db('admin').command({ hello: 1 })) as { localTime: Date }).localTime;

/** A state as 1.0.0's projection folded it: status events only, no 2.0.0 field. */
const v1State = (salesOrderNumber: string, sequence: number, statusId: 20 | 60): OrderStatusState => ({
  clientId: 'C1',
  salesOrderNumber,
  sequence,
  purchaseOrderNumber: `PO-${salesOrderNumber}`,
  statusId,
  open: true,
  validTimestamp,
});

/** The same sales orders folded by 2.0.0's projection over the stream with v2 events added (sequences kept). */
const rebuiltStates = (): OrderStatusState[] => [
  // SO-1: the same status (sequence 3), then an issue and contacts (4, 5): nothing new to 1.0.0.
  {
    ...v1State('SO-1', 5, 20),
    statusSequence: 3,
    lastOccurredAt: validTimestamp,
    issues: [{ issueId: 'I-1', issueStatus: 'Open', issueCategory: 'artHold', urgentResponseRequired: false, source: 'erp', firstSequence: 4 }],
    contacts: [{ contactType: 'Art' }],
  },
  // SO-2: no v2 event; the same state.
  { ...v1State('SO-2', 4, 60), statusSequence: 4, lastOccurredAt: validTimestamp },
  // SO-3: a status the live version had not shown yet (the rebuild ahead of it): news.
  { ...v1State('SO-3', 7, 60), statusSequence: 7, lastOccurredAt: validTimestamp },
];

const statusQuery = (statusTimeStamp: Date) => ({ queryType: 3, statusTimeStamp });
const lastUpdate = (statusTimeStamp: Date): OrderStatusV2Query => ({ queryType: 'lastUpdate', statusTimeStamp, returnIssueDetailType: 'noIssues', returnProductDetail: false });
const outline = (answer: { details: { factoryOrderNumber?: string; salesOrderNumber?: string }[] }[]) => answer.flatMap((o) => o.details.map((d) => d.factoryOrderNumber ?? d.salesOrderNumber));

describe('a 2.0.0 rebuild over a version built before 2.0.0', () => {
  let live: ReadModelCollections;
  let polledAt: Date;
  const shown = new Map<string, Date>();

  beforeAll(async () => {
    db = mongo.db(uniqueNames('change-times').database);
    live = readModelCollections(db, 1);
    await ensureIndexes(live);
    // The live version as 1.0.0's store wrote it: no statusSequence, updatedAt, issueIds, openIssue.
    for (const state of [v1State('SO-1', 3, 20), v1State('SO-2', 4, 60), v1State('SO-3', 5, 20)]) {
      const changedAt = await serverNow();
      shown.set(state.salesOrderNumber, changedAt);
      await live.orderStatus.insertOne({ _id: documentId(state.clientId, state.salesOrderNumber), ...state, changedAt });
    }
    // A partner polls after all of it (past the overlap): from then on it must see only news.
    await sleep(changeTimeOverlapMs + 50);
    polledAt = await serverNow();
  });

  const expectNothingOldAsNew = async (rebuilt: ReadModelCollections) => {
    const lookups = new MongoOrderLookups(rebuilt);
    expect(outline(await lookups.orderStatus(['C1'], statusQuery(polledAt)))).toEqual(['SO-3']);
    // The times the live version showed stand in the rebuild, 1.0.0's and (before 2.0.0: the same) 2.0.0's.
    for (const so of ['SO-1', 'SO-2']) expect((await rebuilt.orderStatus.findOne({ _id: documentId('C1', so) }))!.changedAt).toEqual(shown.get(so));
    expect((await rebuilt.orderStatus.findOne({ _id: documentId('C1', 'SO-2') }))!.updatedAt).toEqual(shown.get('SO-2'));
    // 2.0.0's lastUpdate: SO-1's sequence moved past what the live version showed (issue, contacts); SO-3's status did.
    expect(outline((await lookups.orderStatusV2(['C1'], lastUpdate(polledAt))).orders).sort()).toEqual(['SO-1', 'SO-3']);
    // The first poll from long ago still sees everything.
    expect(outline(await lookups.orderStatus(['C1'], statusQuery(new Date(0)))).sort()).toEqual(['SO-1', 'SO-2', 'SO-3']);
  };

  it('carries the change times at the rebuild’s writes', async () => {
    const rebuilt = readModelCollections(db, 2);
    await ensureIndexes(rebuilt);
    await writeEffects(rebuilt, { orderStatus: rebuiltStates().map((after) => ({ after })), shipments: [] }, live);
    await expectNothingOldAsNew(rebuilt);
  });

  it('carries them when settling after the switch, the rebuild written with times of its own', async () => {
    const rebuilt = readModelCollections(db, 3);
    await ensureIndexes(rebuilt);
    await writeEffects(rebuilt, { orderStatus: rebuiltStates().map((after) => ({ after })), shipments: [] });
    const report = await settleChangeTimes(rebuilt, live, { stamp: true });
    expect(report).toEqual({ carried: 1, stamped: 2 });
    await expectNothingOldAsNew(rebuilt);
  });
});

describe('a rebuild over a version 2.0.0 made', () => {
  it('settles each document the live version changed since a time once, read by updatedAt, which every write stamps', async () => {
    const own = mongo.db(uniqueNames('change-times-v2').database);
    try {
      const live = readModelCollections(own, 1);
      const rebuilt = readModelCollections(own, 2);
      await Promise.all([ensureIndexes(live), ensureIndexes(rebuilt)]);
      const since = await serverNow();
      const states = rebuiltStates();
      // Status writes (changedAt and updatedAt both stamped), then an issue on SO-2 (updatedAt alone).
      await writeEffects(live, { orderStatus: states.map((after) => ({ after })), shipments: [] });
      const issue = { issueId: 'I-2', issueStatus: 'Open', issueCategory: 'artHold', urgentResponseRequired: false, source: 'erp', firstSequence: 5 } as const;
      const withIssue = { ...states[1]!, sequence: 5, issues: [issue] };
      await writeEffects(live, { orderStatus: [{ before: states[1], after: withIssue }], shipments: [] });
      await sleep(20);
      // The rebuild wrote the same states with times of its own.
      await writeEffects(rebuilt, { orderStatus: [states[0]!, withIssue, states[2]!].map((after) => ({ after })), shipments: [] });

      const report = await settleChangeTimes(rebuilt, live, { liveChangedSince: since, stamp: false });
      expect(report).toEqual({ carried: 3, stamped: 0 });
      const times = async (c: ReadModelCollections) =>
        (await c.orderStatus.find({}, { sort: { _id: 1 }, projection: { changedAt: 1, updatedAt: 1 } }).toArray()).map((d) => [d._id, d.changedAt, d.updatedAt]);
      expect(await times(rebuilt)).toEqual(await times(live));
    } finally {
      await own.dropDatabase();
    }
  });
});
