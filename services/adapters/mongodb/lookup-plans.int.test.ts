import type { CommandStartedEvent, Document, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../ossn/demo-events/demo-events.js';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { readShipmentsWhole } from '../../../test/support/read-shipments.js';
import { projectBatch } from '../../projector/project-batch.js';
import { readWhole, type OrderStatusV2Query, type ShipmentQuery, type StatusQuery } from '../../../contracts/lookups.js';
import { connectMongo, createMongoClient } from './connect.js';
import { documentId, ensureIndexes, readModelCollections, type ReadModelCollections } from './documents.js';
import { MongoOrderLookups } from './lookups.js';
import { loadStates, writeEffects } from './writes.js';

// Every lookup reads through an index: each find and aggregate a lookup sends (caught by command
// monitoring, so no query of the lookup can escape) is explained on the real server, over a few thousand sales
// orders written the way the projector writes them.

const env = testEnvironment();
const names = uniqueNames('lookup-plans');
const clients = ['CLIENT-001', 'CLIENT-002', 'CLIENT-003'];
const ordersPerClient = 1_000;

let mongo: MongoClient;
let monitored: MongoClient;
let lookups: MongoOrderLookups;
let store: ReadModelCollections;
const commands: Document[] = [];
let recentChangesSince: Date;
let someShipmentDate: Date;
let purchaseOrder: string;
let salesOrder: string;
let issueId: string;

/** One projector batch: the stored states, the events folded onto them, what changed written. */
async function project(collections: ReadModelCollections, events: ErpEvent[]): Promise<void> {
  const keys = [...new Set(events.map((e) => documentId(e.clientId, e.salesOrderNumber)))];
  const batch = projectBatch(
    await loadStates(collections, keys),
    events.map((event) => ({ event, source: event })),
  );
  await writeEffects(collections, batch.effects);
}

/** The demo stream with the clients named as wanted (the generator numbers its own). */
function demoEvents(): ErpEvent[] {
  return clients.flatMap((clientId, c) =>
    generateDemoEvents({ clients: 1, orders: ordersPerClient, seed: 7_000 + c }).map((event) => ({ ...event, clientId }) as ErpEvent),
  );
}

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'lookup-plans-test');
  store = readModelCollections(mongo.db(names.database), 1);
  await ensureIndexes(store);
  const events = demoEvents();
  for (let start = 0; start < events.length; start += 2_000) await project(store, events.slice(start, start + 2_000));

  // A few status changes after a pause: queryType 3 from between reads only them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const serverNow = (await mongo.db('admin').command({ hello: 1 })).localTime as Date;
  recentChangesSince = new Date(serverNow.getTime() + 5_000 + 1); // past the lookups' 5 s overlap
  await new Promise((resolve) => setTimeout(resolve, 5_100));
  const some = await store.orderStatus.find({ clientId: clients[0], purchaseOrderNumber: { $exists: true } }).limit(20).toArray();
  await project(
    store,
    some.map((s) => ({ ...events.find((e) => e.clientId === s.clientId && e.salesOrderNumber === s.salesOrderNumber && e.type === 'SalesOrderStatusChanged')!, sequence: s.sequence + 1_000 }) as ErpEvent),
  );
  // 2.0.0: issues on a few of them, open and closed (an IssueRecorded each: the sequence moves, the status sequence not).
  const loaded = await loadStates(store, some.slice(0, 10).map((s) => s._id));
  await writeEffects(store, {
    orderStatus: [...loaded.orderStatus.values()].map((before, i) => ({
      before,
      after: { ...before, sequence: before.sequence + 1, issues: [{ issueId: `I-${i}`, issueStatus: i % 2 === 0 ? 'Open' : 'Closed', issueCategory: 'artHold', urgentResponseRequired: false, source: 'erp', firstSequence: before.sequence + 1 }] },
    })),
    shipments: [],
  });
  issueId = 'I-1';
  purchaseOrder = some[0]!.purchaseOrderNumber!;
  salesOrder = some[1]!.salesOrderNumber;
  const shipmentDates = events.flatMap((e) => (e.type === 'PackageShipped' && e.clientId === clients[0] ? [Date.parse(e.data.shipmentDate)] : []));
  someShipmentDate = new Date(Math.max(...shipmentDates));

  // The lookups run on a client of their own that reports every command it sends.
  monitored = createMongoClient(env.mongodbUri, 'lookup-plans-monitored', { monitorCommands: true });
  monitored.on('commandStarted', (event: CommandStartedEvent) => {
    if (['find', 'aggregate'].includes(event.commandName) && event.databaseName === names.database) commands.push(event.command);
  });
  lookups = new MongoOrderLookups(readModelCollections(monitored.db(names.database), 1));
}, 300_000);

afterAll(async () => {
  await mongo?.db(names.database).dropDatabase();
  await mongo?.close();
  await monitored?.close();
});

interface PlanFigures {
  stages: string[];
  keysExamined: number;
  docsExamined: number;
  /** What the index read selects (a find's documents returned; an aggregation's documents matched). */
  returned: number;
  /** Documents that went into a blocking (in-memory) SORT stage, if any. */
  sortedInMemory: number;
}

function stagesOf(plan: Document, into: Document[] = []): Document[] {
  into.push(plan);
  for (const child of [plan.inputStage, ...(plan.inputStages ?? [])]) if (child) stagesOf(child, into);
  return into;
}

/** The command as the lookup sent it, less what the driver adds for the session. */
function explainable(command: Document): Document {
  const { find, filter, sort, projection, limit, hint, skip, aggregate, pipeline } = command;
  const fields = aggregate === undefined ? { find, filter, sort, projection, limit, hint, skip } : { aggregate, pipeline, cursor: {} };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

async function explain(command: Document): Promise<PlanFigures> {
  const reply = await mongo.db(names.database).command({ explain: explainable(command), verbosity: 'executionStats' });
  // An aggregation explains its index read as its first stage, and the stages after it beside.
  const read = (reply.stages?.[0]?.$cursor ?? reply) as Document;
  const stats = read.executionStats as Document;
  const winningPlan = (read.queryPlanner.winningPlan.queryPlan ?? read.queryPlanner.winningPlan) as Document;
  const blockingSort = stagesOf(stats.executionStages as Document).find((stage) => stage.stage === 'SORT');
  // A $sort stage of the pipeline holds what comes in, or at most its limit (a top-k sort).
  const pipelineStages = (reply.stages ?? []) as Document[];
  const sortAt = pipelineStages.findIndex((stage) => '$sort' in stage);
  const pipelineSort = sortAt > 0 ? Math.min((pipelineStages[sortAt]!.$sort.limit as number | undefined) ?? Infinity, pipelineStages[sortAt - 1]!.nReturned as number) : 0;
  // What the index read selects: for an aggregation (which may group inside the plan), the documents its $match finds.
  const returned = command.aggregate === undefined ? (stats.nReturned as number) : await mongo.db(names.database).collection(command.aggregate).countDocuments(command.pipeline[0].$match);
  return {
    stages: stagesOf(winningPlan).map((stage) => String(stage.stage)),
    keysExamined: stats.totalKeysExamined as number,
    docsExamined: stats.totalDocsExamined as number,
    returned,
    sortedInMemory: blockingSort ? ((blockingSort.inputStage as Document | undefined)?.nReturned ?? 0) : pipelineSort,
  };
}

const statusLookups: [string, string[], () => StatusQuery][] = [
  ['status queryType 1 (purchase order)', [clients[0]!], () => ({ queryType: 1, referenceNumber: purchaseOrder })],
  ['status queryType 2 (sales order)', [clients[0]!], () => ({ queryType: 2, referenceNumber: salesOrder })],
  ['status queryType 3 (a recent poll)', [clients[0]!], () => ({ queryType: 3, statusTimeStamp: recentChangesSince })],
  ['status queryType 3 (a first poll, from long ago)', [clients[0]!], () => ({ queryType: 3, statusTimeStamp: new Date('2000-01-01T00:00:00Z') })],
  ['status queryType 1, a credential linked to two clients', [clients[0]!, clients[1]!], () => ({ queryType: 1, referenceNumber: purchaseOrder })],
  ['status queryType 3, a credential linked to two clients', [clients[0]!, clients[1]!], () => ({ queryType: 3, statusTimeStamp: new Date('2000-01-01T00:00:00Z') })],
  ['status queryType 4 (open orders)', [clients[0]!], () => ({ queryType: 4 })],
  ['status queryType 4, a credential linked to two clients', [clients[0]!, clients[1]!], () => ({ queryType: 4 })],
];
const v2 = (q: Partial<OrderStatusV2Query> & Pick<OrderStatusV2Query, 'queryType'>): OrderStatusV2Query => ({ returnIssueDetailType: 'allIssues', returnProductDetail: true, ...q });
const longAgo = new Date('2000-01-01T00:00:00Z');
const statusV2Lookups: [string, string[], () => OrderStatusV2Query][] = [
  ['OSS 2.0.0 poSearch', [clients[0]!], () => v2({ queryType: 'poSearch', referenceNumber: purchaseOrder })],
  ['OSS 2.0.0 soSearch', [clients[0]!], () => v2({ queryType: 'soSearch', referenceNumber: salesOrder })],
  ['OSS 2.0.0 lastUpdate (a recent poll)', [clients[0]!], () => v2({ queryType: 'lastUpdate', statusTimeStamp: recentChangesSince })],
  ['OSS 2.0.0 lastUpdate (a first poll, from long ago)', [clients[0]!], () => v2({ queryType: 'lastUpdate', statusTimeStamp: longAgo })],
  ['OSS 2.0.0 lastUpdate, a credential linked to two clients', [clients[0]!, clients[1]!], () => v2({ queryType: 'lastUpdate', statusTimeStamp: longAgo })],
  ['OSS 2.0.0 allOpen', [clients[0]!], () => v2({ queryType: 'allOpen' })],
  ['OSS 2.0.0 allOpenIssues', [clients[0]!], () => v2({ queryType: 'allOpenIssues' })],
  ['OSS 2.0.0 allOpenIssues, a credential linked to two clients', [clients[0]!, clients[1]!], () => v2({ queryType: 'allOpenIssues' })],
];
const shipmentLookups: [string, string[], () => ShipmentQuery][] = [
  ['shipments queryType 1 (purchase order)', [clients[0]!], () => ({ queryType: 1, referenceNumber: purchaseOrder })],
  ['shipments queryType 2 (sales order)', [clients[0]!], () => ({ queryType: 2, referenceNumber: salesOrder })],
  ['shipments queryType 3 (a recent poll)', [clients[0]!], () => ({ queryType: 3, shipmentDateTimeStamp: recentChangesSince })],
  ['shipments queryType 3 (from the latest shipmentDate: all made visible since)', [clients[0]!], () => ({ queryType: 3, shipmentDateTimeStamp: someShipmentDate })],
  ['shipments queryType 3 (a first poll, from long ago)', [clients[0]!], () => ({ queryType: 3, shipmentDateTimeStamp: new Date('2000-01-01T00:00:00Z') })],
  ['shipments queryType 3, a credential linked to two clients', [clients[0]!, clients[1]!], () => ({ queryType: 3, shipmentDateTimeStamp: new Date('2000-01-01T00:00:00Z') })],
];

describe(`every lookup reads through an index (${clients.length * ordersPerClient} sales orders, MongoDB)`, () => {
  const check = async (label: string, run: () => Promise<unknown[]>) => {
    commands.length = 0;
    const answer = await run();
    expect(commands.length, `${label}: sent no query`).toBeGreaterThan(0);
    for (const command of commands) {
      const plan = await explain(command);
      const what = command.find ? `find ${command.find} ${JSON.stringify(command.filter)}` : `aggregate ${command.aggregate} ${JSON.stringify(command.pipeline[0])}`;
      const line = `${label} · ${what}: ${plan.stages.join(' <- ')}; keys ${plan.keysExamined}, docs ${plan.docsExamined}, returned ${plan.returned}, sorted in memory ${plan.sortedInMemory}`;
      process.stdout.write(`${line}\n`);
      expect(plan.stages, line).not.toContain('COLLSCAN');
      expect(plan.stages.some((stage) => stage === 'IXSCAN' || stage === 'IDHACK'), line).toBe(true);
      // Keys within a small factor of what is returned: the index bounds fit the query. (A sales
      // order's several package dates in one range are several keys of one document.)
      expect(plan.keysExamined, line).toBeLessThanOrEqual(4 * plan.returned + 4);
      expect(plan.docsExamined, line).toBeLessThanOrEqual(2 * plan.returned + 4);
      expect(plan.sortedInMemory, line).toBeLessThanOrEqual(Math.max(answerSize(answer), 1));
    }
  };

  it.each(statusLookups)('%s', async (label, clientIds, query) => {
    await check(label, () => lookups.orderStatus(clientIds, query()));
  });

  it.each(shipmentLookups)('%s', async (label, clientIds, query) => {
    await check(label, () => readShipmentsWhole(lookups, clientIds, query()));
  });

  it.each(statusV2Lookups)('%s', async (label, clientIds, query) => {
    await check(label, async () => (await lookups.orderStatusV2(clientIds, query())).orders);
  });

  it.each([
    ['getIssue', [clients[0]!]],
    ['getIssue, a credential linked to two clients', [clients[0]!, clients[1]!]],
  ])('%s', async (label, clientIds) => {
    await check(label, async () => {
      const found = await lookups.issues(clientIds, issueId);
      expect(found.map((i) => i.issueId)).toEqual([issueId]);
      return found;
    });
  });

  it.each(shipmentLookups)('OSN 2.0.0: %s', async (label, clientIds, query) => {
    await check(`OSN 2.0.0 ${label}`, async () => (await readWhole(await lookups.shipmentNotificationV2Batches(clientIds, query()))).orders);
  });
});

/** Sales orders in an answer (issues in getIssue's): what an in-memory sort may hold at most. */
function answerSize(answer: unknown[]): number {
  return (answer as ({ details?: unknown[]; salesOrders?: unknown[] })[]).reduce((n, po) => n + (po.details ?? po.salesOrders ?? [po]).length, 0);
}
