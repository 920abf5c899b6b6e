// npm run bench:push   (or: npm run bench -- push; npx tsx bench/push.ts [--quick] [--minutes 6] [--phases 4]
//                       [--subscriptions 100] [--receivers 100] [--clients-per-subscription 1] [--drain-seconds 20]
//                       [--orders 300000] [--credentials 1000] [--events-per-second 1000] [--partitions 6])
//
// Push lag at the whole-system load: bench/system.ts's load (bench/support/system-load.ts: `ossn
// serve` and `ossn projector` as children, --credentials partners polling queryType 3 once a minute,
// the ERP publishing --events-per-second events) runs for --minutes, split into --phases of equal
// length, alternately without and with `ossn pusher` (a child process, as deployed), starting
// without. Each phase with it: --subscriptions fresh push subscriptions (one credential each, linked
// to --clients-per-subscription clients of the stream no other subscription has, every client of it
// pushed), starting from the phase's start, to --receivers trial receivers built from the official
// 2.1.0 WSDL (bench/support/push-receivers.ts, one process, each receiver on a port of its own: a
// receiver origin of its own, as partners' receivers are; the subscriptions spread evenly over them).
// Its measured time starts once the pusher works every subscription and lasts the phase; then the
// bench waits up to --drain-seconds for the packages published in it, stops the pusher and removes
// the subscriptions (the next phase with it starts afresh, with no backlog).
//
// Push lag: from the publication of a PackageShipped event (its batch handed to the producer) to
// the acceptance, by its receiver, of the first notification that shows the package; per
// notification, its oldest package not shown before. Counted: packages of the subscriptions'
// clients published within a measured time, whose sales order has a purchase order number, not
// voided before they were shown. Prints p50/p95/p99/max of the lag (and where it goes: until the
// delivery started, by the pusher's delivery log, and the projector's freshness), notifications
// accepted and per second, the pusher's attempts by outcome, deliveries unchanged and parked, the
// poll cycle each subscription kept (its cursor's moves), the pusher's and the receivers' CPU,
// mongod's time by collection (its top command), and partner latency and the machine's CPU without
// and with the pusher, side by side, with ratios.
// Figures in bench/results/push.json (push-poll-<ms>ms.json with another OSSN_PUSH_POLL_INTERVAL_MS,
// -quick with --quick).
//
// --quick: a run of about two minutes (one minute measured: a phase without and one with the
// pusher, 100 partners logging in over 10 s), to try the bench, not to quote.
// The pusher's settings are its own variables (readPusherConfig, services/config/config.ts), passed
// on to it from this environment: e.g. OSSN_PUSH_POLL_INTERVAL_MS=500 npm run bench:push. The order book (ossn_bench_push_<orders>, its
// own database) and the credentials are kept for the next run; the subscriptions, their cursors and
// deliveries, the topics and the sales orders of the run are removed at its end.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ErpEvent } from '../contracts/erp-events.js';
import { CredentialStore, credentialsCollection } from '../services/adapters/mongodb/credential-store.js';
import { pushCursorsCollection } from '../services/adapters/mongodb/push-cursors.js';
import { MongoPushDeliveries, pushDeliveryLogCollectionName, type DeliveryLogDocument } from '../services/adapters/mongodb/push-deliveries.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../services/adapters/mongodb/push-subscriptions.js';
import { SecretKey } from '../services/config/secret-key.js';
import { hashPassword } from '../services/domain/credentials/password-hash.js';
import { newPushSubscription } from '../services/domain/push/new-subscription.js';
import { ReceiverPassword } from '../services/domain/push/receiver-password.js';
import type { PushSubscription } from '../services/domain/push/subscription.js';
import { BenchRun } from './support/bench-run.js';
import { sampleCpu, type CpuSample } from './support/cpu.js';
import { counterSum, histogramDelta, scrape, type Scrape } from './support/prometheus.js';
import type { AcceptedMessage, ReceiversMessage } from './support/push-receivers.js';
import { writeResults } from './support/results.js';
import { clientId } from './support/seed.js';
import { quantile } from './support/stats.js';
import { cpuFigures, errorCount, fmt, minuteLines, MinuteTally, newTally, recordPoll, sortedAll, startSystemLoad, SYSTEM_DEFAULTS, type Tally } from './support/system-load.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    minutes: { type: 'string' },
    phases: { type: 'string' },
    subscriptions: { type: 'string', default: '100' },
    receivers: { type: 'string' },
    'clients-per-subscription': { type: 'string', default: '1' },
    'drain-seconds': { type: 'string', default: '20' },
    orders: { type: 'string', default: String(SYSTEM_DEFAULTS.orders) },
    credentials: { type: 'string' },
    'events-per-second': { type: 'string', default: String(SYSTEM_DEFAULTS.eventsPerSecond) },
    partitions: { type: 'string', default: String(SYSTEM_DEFAULTS.partitions) },
  },
});
const quick = values.quick;
const minutes = Number(values.minutes ?? (quick ? '1' : '6'));
const phaseCount = Number(values.phases ?? (quick ? '2' : '4'));
const subscriptionCount = Number(values.subscriptions);
const receiverCount = Number(values.receivers ?? values.subscriptions);
const clientsPerSubscription = Number(values['clients-per-subscription']);
const drainSeconds = Number(values['drain-seconds']);
const orders = Number(values.orders);
const credentialCount = Number(values.credentials ?? (quick ? '100' : String(SYSTEM_DEFAULTS.credentials)));
const eventsPerSecond = Number(values['events-per-second']);
const partitions = Number(values.partitions);
if (!(minutes > 0) || !(eventsPerSecond >= 0) || !(drainSeconds >= 0)) throw new Error('--minutes takes a number above 0, --events-per-second and --drain-seconds one of at least 0');
for (const n of [phaseCount, subscriptionCount, receiverCount, clientsPerSubscription, orders, credentialCount, partitions]) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`--phases, --subscriptions, --receivers, --clients-per-subscription, --orders, --credentials and --partitions take whole numbers of at least 1, got ${n}`);
}
if (phaseCount < 2) throw new Error('--phases must be at least 2: one without the pusher and one with it');

const say = (line: string) => process.stderr.write(`bench: ${line}\n`);
const phaseMs = (minutes * 60_000) / phaseCount;
/** The pusher's settings as it reads them (passed on to it from this environment). */
const pollIntervalMs = Number(process.env.OSSN_PUSH_POLL_INTERVAL_MS ?? '2000');
const requestsPerReceiver = Number(process.env.OSSN_PUSH_REQUESTS_PER_RECEIVER ?? '4');
const PUSHER_START_TIMEOUT_MS = 300_000;
const RECEIVER_ID = 'ossn-bench';

const run = new BenchRun(say);
const load = await startSystemLoad(run, { name: 'push', orders, credentials: credentialCount, eventsPerSecond, partitions, database: `ossn_bench_push_${orders}`, say });
const { db, clients } = load;
if (subscriptionCount * clientsPerSubscription > clients) throw new Error(`${subscriptionCount} subscriptions of ${clientsPerSubscription} clients each need that many clients; the order book has ${clients}`);

// ---- the subscriptions' credentials: each linked to clients of its own, spread over the stream's
const stride = Math.floor(clients / subscriptionCount);
const subscriptionClients = Array.from({ length: subscriptionCount }, (_, i) => Array.from({ length: clientsPerSubscription }, (_, j) => clientId(i * stride + j)));
const subscribedClients = new Set(subscriptionClients.flat());
const credentialIdOf = (i: number) => `bench-push-sub-${String(i + 1).padStart(3, '0')}`;
const customerIdentifierOf = credentialIdOf;
{
  // Never used to log in (the pusher reads a credential's links only): one hash for all.
  const passwordHash = await hashPassword(randomBytes(12).toString('hex'));
  const store = new CredentialStore(credentialsCollection(db));
  for (const [i, ids] of subscriptionClients.entries()) await store.upsert({ id: credentialIdOf(i), passwordHash, scopes: ['osn'], clientIds: ids });
}

const subscriptionStore = new MongoPushSubscriptions(pushSubscriptionsCollection(db));
const cursors = pushCursorsCollection(db);
const deliveries = MongoPushDeliveries.of(db);
const deliveryLog = db.collection<DeliveryLogDocument>(pushDeliveryLogCollectionName);
/** Removes the bench's subscriptions, with their cursors and deliveries (the log ages out). */
async function removeSubscriptions(): Promise<void> {
  const ours = (await subscriptionStore.list()).filter((s) => s.credentialId.startsWith('bench-push-sub-'));
  for (const subscription of ours) {
    await subscriptionStore.remove(subscription.id);
    await cursors.deleteOne({ _id: subscription.id });
    await deliveries.removeSubscription(subscription.id);
  }
}
await removeSubscriptions();
run.onCleanUp('removing the push subscriptions', removeSubscriptions);

// ---- the receivers, in a process of their own
const receiverPassword = randomBytes(12).toString('base64url');
const receiversScript = fileURLToPath(new URL('./support/push-receivers.ts', import.meta.url));
const receiversChild = spawn(process.execPath, ['--import', 'tsx', receiversScript], {
  env: { ...process.env, RECEIVER_COUNT: String(receiverCount), RECEIVER_ID, RECEIVER_PASSWORD: receiverPassword },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
run.children.set('receivers', receiversChild);
const receiverUrls = await new Promise<string[]>((resolve, reject) => {
  receiversChild.once('exit', (code) => reject(new Error(`the receivers exited (code ${code}) before they were ready`)));
  receiversChild.on('message', (message: ReceiversMessage) => {
    if (message.type === 'ready') resolve(message.urls);
  });
});
load.cpuWatched.push({ name: 'receivers', pid: receiversChild.pid as number });
load.memory.watch({ name: 'receivers', pid: receiversChild.pid as number });
say(`${receiverCount} receivers listening (${receiverUrls[0]} …)`);

// ---- what was published, and what was delivered
interface TrackedPackage {
  clientId: string;
  salesOrder: string;
  publishedAt: number;
  /** The phase whose measured time it was published in. */
  phase?: number;
  voided?: boolean;
  acceptedAt?: number;
}
/** The subscribed clients' packages by tracking number (random 12 to 22 characters: a repeat is counted and left out). */
const packages = new Map<string, TrackedPackage>();
const packageOfKey = new Map<string, string>();
const purchaseOrderOf = new Map<string, string>();
let repeatedTrackingNumbers = 0;

interface Phase {
  index: number;
  pusher: boolean;
  from: number;
  to?: number;
  tally: Tally;
  cpuFrom?: CpuSample;
  cpuTo?: CpuSample;
  /** Accepted notifications with their lag (ms), and the oldest package's publication. */
  notifications: { receivedAt: number; lagMs: number; publishedAt: number; transactionId: string; subscription: string }[];
  accepted: number;
  subscriptions: PushSubscription[];
  cycleMs: number[];
  pusherFrom?: Scrape;
  /** mongod's time and operations per collection of the bench's database (its `top` command) at the measured time's start and end. */
  topFrom?: StoreTop;
  topTo?: StoreTop;
  pusherTo?: Scrape;
  projectorFrom?: Scrape;
  projectorTo?: Scrape;
  /** Per counted notification: publication → the delivery's start, and the start → acceptance (from the pusher's log). */
  waitMs: number[];
  sendMs: number[];
  startedMs?: number;
  /** The machine's load average (1 min) at the phase's end: other work shows here. */
  loadAverage?: number;
}
const phases: Phase[] = [];
let measuring: Phase | undefined;

function onPublished(events: readonly ErpEvent[], at: number): void {
  for (const event of events) {
    if (!subscribedClients.has(event.clientId)) continue;
    const order = `${event.clientId}|${event.salesOrderNumber}`;
    if (event.type === 'SalesOrderStatusChanged' && event.data.purchaseOrderNumber) purchaseOrderOf.set(order, event.data.purchaseOrderNumber);
    else if (event.type === 'PackageShipped') {
      const { trackingNumber, locationId, packageId } = event.data;
      if (packages.has(trackingNumber)) {
        repeatedTrackingNumbers++;
        continue;
      }
      const inTime = measuring?.pusher && measuring.to === undefined && at >= measuring.from ? measuring.index : undefined;
      packages.set(trackingNumber, { clientId: event.clientId, salesOrder: event.salesOrderNumber, publishedAt: at, ...(inTime === undefined ? {} : { phase: inTime }) });
      packageOfKey.set(`${order}|${locationId}|${packageId}`, trackingNumber);
    } else if (event.type === 'PackageVoided') {
      const tracked = packages.get(packageOfKey.get(`${order}|${event.data.locationId}|${event.data.packageId}`) ?? '');
      if (tracked && tracked.acceptedAt === undefined) tracked.voided = true;
    }
  }
}

let acceptedThisMinute = 0;
function onAccepted(notification: AcceptedMessage): void {
  acceptedThisMinute++;
  const phase = phases.find((p) => p.pusher && notification.receivedAtMs >= p.from && (p.to === undefined || notification.receivedAtMs <= p.to));
  if (phase) phase.accepted++;
  let oldest: TrackedPackage | undefined;
  for (const trackingNumber of notification.trackingNumbers) {
    const tracked = packages.get(trackingNumber);
    if (!tracked || tracked.acceptedAt !== undefined) continue;
    tracked.acceptedAt = notification.receivedAtMs;
    if (!oldest || tracked.publishedAt < oldest.publishedAt) oldest = tracked;
  }
  if (oldest?.phase === undefined) return;
  phases[oldest.phase]?.notifications.push({
    receivedAt: notification.receivedAtMs,
    lagMs: notification.receivedAtMs - oldest.publishedAt,
    publishedAt: oldest.publishedAt,
    transactionId: notification.transactionId,
    subscription: notification.customerIdentifier ?? '?',
  });
}
receiversChild.on('message', (message: ReceiversMessage) => {
  if (message.type === 'accepted') for (const notification of message.notifications) onAccepted(notification);
});

/** The packages counted in a phase: published in its measured time with a purchase order, not voided before shown. */
const countedIn = (phase: Phase) =>
  [...packages.values()].filter((p) => p.phase === phase.index && !p.voided && purchaseOrderOf.has(`${p.clientId}|${p.salesOrder}`));

// ---- where mongod's time goes: its `top` command, per collection of the bench's database
type StoreTop = Map<string, { micros: number; count: number }>;
async function storeTop(): Promise<StoreTop> {
  const { totals } = (await load.mongo.db('admin').command({ top: 1 })) as { totals: Record<string, { total?: { time: number; count: number } }> };
  const top: StoreTop = new Map();
  for (const [namespace, usage] of Object.entries(totals)) {
    if (!namespace.startsWith(`${load.database}.`) || !usage.total) continue;
    // The read models' versioned collections under one name each.
    const name = namespace.slice(load.database.length + 1).replace(/_v\d+$/, '');
    const entry = top.get(name) ?? { micros: 0, count: 0 };
    entry.micros += usage.total.time;
    entry.count += usage.total.count;
    top.set(name, entry);
  }
  return top;
}

// ---- the pusher, started afresh for each phase with it
const secretKey = randomBytes(32);
const key = new SecretKey(secretKey);
let pusherOps: string | undefined;

async function startPushing(): Promise<PushSubscription[]> {
  const now = new Date();
  const subscriptions = subscriptionClients.map((_, i) =>
    newPushSubscription(
      { credentialId: credentialIdOf(i), url: receiverUrls[i % receiverCount] as string, receiverId: RECEIVER_ID, customerIdentifier: customerIdentifierOf(i), cursorStart: now },
      { key, now, password: new ReceiverPassword(receiverPassword) },
    ),
  );
  for (const subscription of subscriptions) await subscriptionStore.add(subscription);
  const started = await load.startOssn(
    'pusher',
    'pusher',
    { ...load.storeEnv, OSSN_SECRET_KEY: secretKey.toString('hex'), OSSN_PUSHER_METRICS_HOST: '127.0.0.1', OSSN_PUSHER_METRICS_PORT: '0' },
    'pusher metrics and probes listening',
  );
  pusherOps = started.opsUrl;
  // Worked once its lease is taken (the pusher takes them one at a time, starting each worker at once).
  const deadline = Date.now() + PUSHER_START_TIMEOUT_MS;
  const ids = subscriptions.map((subscription) => subscription.id);
  for (;;) {
    const worked = await cursors.countDocuments({ _id: { $in: ids }, owner: { $exists: true } });
    if (worked >= subscriptionCount) break;
    if (Date.now() > deadline) throw new Error(`the pusher worked ${worked} of ${subscriptionCount} subscriptions after ${PUSHER_START_TIMEOUT_MS / 1000} s`);
    await sleep(250);
  }
  return subscriptions;
}

async function stopPushing(): Promise<void> {
  load.memory.forget('pusher');
  const index = load.cpuWatched.findIndex((w) => w.name === 'pusher');
  if (index >= 0) load.cpuWatched.splice(index, 1);
  await run.stopChild('pusher');
  pusherOps = undefined;
  await removeSubscriptions();
}

/** Each subscription's poll cycle while `phase` lasts: the time between its cursor's moves. */
function watchCursors(phase: Phase): () => void {
  const last = new Map<string, number>();
  const ids = phase.subscriptions.map((s) => s.id);
  const timer = setInterval(() => {
    void cursors
      .find({ _id: { $in: ids } }, { projection: { cursor: 1 } })
      .toArray()
      .then((documents) => {
        for (const { _id, cursor } of documents) {
          if (!cursor) continue;
          const before = last.get(_id);
          if (before !== undefined && cursor.getTime() !== before) phase.cycleMs.push(cursor.getTime() - before);
          last.set(_id, cursor.getTime());
        }
      }, () => undefined);
  }, 500);
  return () => clearInterval(timer);
}

// ---- the window
// Every partner logged in before the window (failures asked again): the phases measure the steady
// state. Over two minutes, not one: a thousand checks take 0.6 of a core then, below the one core the
// query service gives them, so the first logins do not swamp it (bench/system.ts measures that).
const loginSpreadMs = quick ? 10_000 : 120_000;
const coldStart = await load.firstLogins({ spreadMs: loginSpreadMs, retryFailures: true, deadlineMs: loginSpreadMs + 300_000 });
const windowStart = Date.now();
// Phases with the pusher take longer than their measured time (its start, the drain): the load
// runs until they are over, within this bound.
const loadEnd = windowStart + minutes * 60_000 + phaseCount * (PUSHER_START_TIMEOUT_MS + drainSeconds * 1000 + 60_000);
say(`${fmt(phaseCount)} phases of ${fmt(phaseMs / 1000)} s from ${new Date(windowStart).toISOString()}, alternately without and with the pusher: ${credentialCount} partners polling, ${fmt(eventsPerSecond)} events/s; ${subscriptionCount} subscriptions to ${receiverCount} receivers, poll interval ${fmt(pollIntervalMs)} ms`);

const thisMinute = new MinuteTally();
const loadRun = load.runLoad({
  start: windowStart,
  end: loadEnd,
  onPoll: (result, sentAt) => {
    thisMinute.record(result);
    // By the time it was sent: a poll sent within a phase's measured time counts in it.
    const phase = phases.find((p) => sentAt >= p.from && (p.to === undefined || sentAt < p.to));
    if (phase) recordPoll(phase.tally, result);
  },
  onPublished,
});
const stopMinuteLines = minuteLines(
  load,
  loadRun.published,
  thisMinute,
  say,
  () => {
    const line = `${measuring?.pusher ? 'pushing' : 'not pushing'}, ${fmt(acceptedThisMinute)} notifications accepted`;
    acceptedThisMinute = 0;
    return line;
  },
);

for (let index = 0; index < phaseCount && !run.stopping; index++) {
  const pusher = index % 2 === 1;
  const phase: Phase = { index, pusher, from: 0, tally: newTally(), notifications: [], accepted: 0, subscriptions: [], cycleMs: [], waitMs: [], sendMs: [] };
  let stopWatching = () => {};
  if (pusher) {
    const startedAt = Date.now();
    phase.subscriptions = await startPushing();
    phase.startedMs = Date.now() - startedAt;
    phase.pusherFrom = await scrape(`${pusherOps}/metrics`);
    stopWatching = watchCursors(phase);
  }
  phase.projectorFrom = await scrape(load.metricsUrl);
  phase.topFrom = await storeTop();
  phase.cpuFrom = sampleCpu(load.cpuWatched);
  phase.from = Date.now();
  phases.push(phase);
  measuring = phase;
  say(`phase ${index + 1} of ${phaseCount}: ${pusher ? `with the pusher (working ${subscriptionCount} subscriptions ${fmt((phase.startedMs ?? 0) / 1000, 1)} s after its start)` : 'without the pusher'}, ${fmt(phaseMs / 1000)} s`);
  await sleep(phaseMs);
  phase.to = Date.now();
  phase.cpuTo = sampleCpu(load.cpuWatched);
  phase.loadAverage = loadavg()[0];
  phase.projectorTo = await scrape(load.metricsUrl);
  phase.topTo = await storeTop();
  if (pusher) {
    // The packages of the measured time get up to --drain-seconds to be delivered.
    const drainEnd = Date.now() + drainSeconds * 1000;
    while (Date.now() < drainEnd && countedIn(phase).some((p) => p.acceptedAt === undefined)) await sleep(250);
    await sleep(500); // the receivers' last batch of acceptances
    stopWatching();
    phase.pusherTo = await scrape(`${pusherOps}/metrics`);
    // Where each counted notification's time went: until its delivery started, and the delivery.
    const logged = new Map<string, DeliveryLogDocument>();
    const ids = phase.subscriptions.map((s) => s.id);
    for await (const entry of deliveryLog.find({ subscriptionId: { $in: ids }, outcome: 'acknowledged' })) if (entry.transactionId) logged.set(entry.transactionId, entry);
    for (const n of phase.notifications) {
      const entry = logged.get(n.transactionId);
      if (!entry) continue;
      phase.waitMs.push(entry.at.getTime() - n.publishedAt);
      phase.sendMs.push(n.receivedAt - entry.at.getTime());
    }
    await stopPushing();
  }
  measuring = undefined;
}
loadRun.stop();
await loadRun.done;
stopMinuteLines();
const peakRssMiB = load.memory.peaksMiB();
load.memory.stop();
load.close();

// ---- figures
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantiles = (values: number[]) => {
  const s = sorted(values);
  return { count: s.length, p50: quantile(s, 0.5), p95: quantile(s, 0.95), p99: quantile(s, 0.99), max: s.at(-1) ?? NaN };
};
const withPusher = phases.filter((p) => p.pusher);
const withoutPusher = phases.filter((p) => !p.pusher);
const measuredSeconds = (list: Phase[]) => list.reduce((sum, p) => sum + ((p.to ?? p.from) - p.from) / 1000, 0);
const pushSeconds = measuredSeconds(withPusher);

const lag = quantiles(withPusher.flatMap((p) => p.notifications.map((n) => n.lagMs)));
const counted = withPusher.flatMap(countedIn);
const delivered = counted.filter((p) => p.acceptedAt !== undefined);
const packageLags = counted.map((p) => (p.acceptedAt === undefined ? Infinity : p.acceptedAt - p.publishedAt));
const packageLag = quantiles(packageLags);
const withoutPurchaseOrder = withPusher.flatMap((phase) => [...packages.values()].filter((p) => p.phase === phase.index && !purchaseOrderOf.has(`${p.clientId}|${p.salesOrder}`))).length;
const voided = withPusher.flatMap((phase) => [...packages.values()].filter((p) => p.phase === phase.index && p.voided)).length;
const wait = quantiles(withPusher.flatMap((p) => p.waitMs));
const send = quantiles(withPusher.flatMap((p) => p.sendMs));
const cycle = quantiles(withPusher.flatMap((p) => p.cycleMs));
const accepted = withPusher.reduce((sum, p) => sum + p.accepted, 0);

/** A pusher counter's rise over the phases with it (a new pusher each: its counters start at 0). */
const pusherCounter = (name: string, labels = '') =>
  withPusher.reduce((sum, p) => sum + (p.pusherTo ? counterSum(new Map([...p.pusherTo].filter(([series]) => series.startsWith(`${name}${labels}`))), name) : 0), 0);
const outcomes = Object.fromEntries(['acknowledged', 'transient', 'refused', 'nothing-to-send'].map((o) => [o, pusherCounter('ossn_pusher_attempts_total', `{outcome="${o}"`)]));
const unchanged = pusherCounter('ossn_pusher_unchanged_total');
const parked = pusherCounter('ossn_pusher_parked_total');
const fullPolls = pusherCounter('ossn_pusher_full_polls_total');
const attemptQuantile = (q: number) => {
  // Pooled over the phases: the phases' buckets added up.
  const pooled = new Map<string, number>();
  for (const p of withPusher) for (const [series, value] of p.pusherTo ?? []) if (series.startsWith('ossn_pusher_attempt_duration_seconds_bucket')) pooled.set(series, (pooled.get(series) ?? 0) + value);
  return histogramDelta(new Map(), pooled, 'ossn_pusher_attempt_duration_seconds').quantile(q);
};
const freshness = (list: Phase[], q: number) => {
  const pooled = new Map<string, number>();
  for (const p of list) {
    for (const [series, value] of p.projectorTo ?? []) if (series.startsWith('ossn_projector_freshness_seconds_bucket')) pooled.set(series, (pooled.get(series) ?? 0) + value - (p.projectorFrom?.get(series) ?? 0));
  }
  return histogramDelta(new Map(), pooled, 'ossn_projector_freshness_seconds').quantile(q);
};

/** CPU over a set of phases: each process's cores and event loop, and the machine's share busy. */
function cpuOver(list: Phase[]) {
  const seconds = measuredSeconds(list);
  const byName = new Map<string, { cpuSeconds: number; mainSeconds: number | undefined }>();
  let busy = 0;
  let all = 0;
  for (const p of list) {
    if (!p.cpuFrom || !p.cpuTo) continue;
    // Over one second: the cores figures are CPU seconds.
    for (const f of cpuFigures(p.cpuFrom, p.cpuTo, 1)) {
      const entry = byName.get(f.name) ?? { cpuSeconds: 0, mainSeconds: undefined };
      entry.cpuSeconds += f.cpuSeconds;
      // A server watched as a process group has no event loop to show.
      if (f.mainThreadCores !== undefined) entry.mainSeconds = (entry.mainSeconds ?? 0) + f.mainThreadCores;
      byName.set(f.name, entry);
    }
    busy += p.cpuTo.machineBusy - p.cpuFrom.machineBusy;
    all += p.cpuTo.machineAll - p.cpuFrom.machineAll;
  }
  return {
    seconds,
    machineBusy: busy / all,
    processes: [...byName].map(([name, e]) => ({ name, cores: e.cpuSeconds / seconds, mainThreadCores: e.mainSeconds === undefined ? undefined : e.mainSeconds / seconds })),
  };
}
/** mongod's time (ms a second) and operations (a second) per collection over a set of phases, busiest first. */
function storeUse(list: Phase[]) {
  const seconds = measuredSeconds(list);
  const sum = new Map<string, { micros: number; count: number }>();
  for (const p of list) {
    for (const [name, end] of p.topTo ?? []) {
      const start = p.topFrom?.get(name) ?? { micros: 0, count: 0 };
      const entry = sum.get(name) ?? { micros: 0, count: 0 };
      entry.micros += end.micros - start.micros;
      entry.count += end.count - start.count;
      sum.set(name, entry);
    }
  }
  return [...sum].map(([name, e]) => ({ name, msPerSecond: e.micros / 1000 / seconds, opsPerSecond: e.count / seconds })).filter((e) => e.opsPerSecond > 0).sort((a, b) => b.msPerSecond - a.msPerSecond);
}
const storeWith = storeUse(withPusher);
const storeWithout = storeUse(withoutPusher);
const cpuWith = cpuOver(withPusher);
const cpuWithout = cpuOver(withoutPusher);
const coresOf = (cpu: ReturnType<typeof cpuOver>, name: string) => cpu.processes.find((p) => p.name === name);

function partnerFigures(list: Phase[]) {
  const tally = newTally();
  for (const p of list) for (const [kind, latencies] of Object.entries(p.tally.latencies)) for (const ms of latencies) recordPoll(tally, { kind: kind as keyof Tally['latencies'], ms, outcome: 'ok' });
  const errors = list.reduce((n, p) => n + errorCount(p.tally), 0);
  const all = sortedAll(tally);
  return { requests: tally.requests, p50: quantile(all, 0.5), p99: quantile(all, 0.99), errors };
}
const partnersWith = partnerFigures(withPusher);
const partnersWithout = partnerFigures(withoutPusher);
const pairs = withPusher.map((p) => {
  const before = phases[p.index - 1] as Phase;
  const a = partnerFigures([before]);
  const b = partnerFigures([p]);
  return { phases: [before.index + 1, p.index + 1], withoutP99: a.p99, withP99: b.p99, ratio: b.p99 / a.p99 };
});

const ms = (n: number) => `${fmt(n)} ms`;
const s = (n: number) => (n === Infinity ? 'not delivered' : `${fmt(n / 1000, 2)} s`);
const q = (x: { count: number; p50: number; p95: number; p99: number; max: number }) => `p50 ${s(x.p50)}, p95 ${s(x.p95)}, p99 ${s(x.p99)}, max ${s(x.max)} (${fmt(x.count)})`;
const f2 = (v: { value: number; above: boolean }) => (Number.isNaN(v.value) ? '-' : `${v.above ? '> ' : ''}${fmt(v.value, 3)} s`);
const pusherCpu = coresOf(cpuWith, 'pusher');
const receiversCpu = coresOf(cpuWith, 'receivers');
const lines = [
  '',
  `==== push bench: ${subscriptionCount} subscriptions to ${receiverCount} receivers (${clientsPerSubscription} client${clientsPerSubscription === 1 ? '' : 's'} each), one ossn pusher (its own process), poll interval ${fmt(pollIntervalMs)} ms, ${requestsPerReceiver} requests a receiver; ` +
    `the whole-system load: ${fmt(orders)} sales orders, ${fmt(credentialCount)} partners, ${fmt(eventsPerSecond)} events/s; ${phaseCount} phases of ${fmt(phaseMs / 1000)} s, alternately without and with the pusher ====`,
  `push lag, publication to acceptance, per notification (its oldest package not shown before): ${q(lag)}`,
  `  per package counted: ${q(packageLag)}; ${fmt(delivered.length)} of ${fmt(counted.length)} delivered within the phase and ${drainSeconds} s after it` +
    ` (left out: ${fmt(withoutPurchaseOrder)} without a purchase order, ${fmt(voided)} voided before shown${repeatedTrackingNumbers ? `, ${fmt(repeatedTrackingNumbers)} repeated tracking numbers` : ''})`,
  `  where it went: publication → the delivery's start (projection, the poll, the queue) ${q(wait)}; the delivery (picture read, send, receiver) ${q(send)}`,
  `  projector freshness (publication to visible) while pushing: p50 ${f2(freshness(withPusher, 0.5))}, p99 ${f2(freshness(withPusher, 0.99))}; without: p50 ${f2(freshness(withoutPusher, 0.5))}, p99 ${f2(freshness(withoutPusher, 0.99))}`,
  `  poll cycle (a subscription's successive poll starts): ${q(cycle)}`,
  `notifications accepted while pushing: ${fmt(accepted)} (${fmt(accepted / pushSeconds, 1)}/s); attempts: ${Object.entries(outcomes).map(([o, n]) => `${o} ${fmt(n)}`).join(', ')}; unchanged (not sent again) ${fmt(unchanged)}; parked ${fmt(parked)}; full polls ${fmt(fullPolls)}`,
  `  attempt duration (the pusher's histogram): p50 ${f2(attemptQuantile(0.5))}, p99 ${f2(attemptQuantile(0.99))}; the pusher worked every subscription ${withPusher.map((p) => `${fmt((p.startedMs ?? 0) / 1000, 1)} s`).join(', ')} after it was started`,
  `pusher CPU while pushing: ${fmt(pusherCpu?.cores ?? NaN, 2)} cores (event loop ${fmt(pusherCpu?.mainThreadCores ?? NaN, 2)}), peak RSS ${fmt(peakRssMiB['pusher'] ?? NaN)} MiB; receivers ${fmt(receiversCpu?.cores ?? NaN, 2)} cores`,
  `mongod's time by collection (its top command; ms a second, operations a second), without → with the pusher:`,
  ...storeWith.slice(0, 8).map((w) => {
    const o = storeWithout.find((x) => x.name === w.name);
    return `  ${w.name.padEnd(20)} ${fmt(o?.msPerSecond ?? 0, 1).padStart(7)} → ${fmt(w.msPerSecond, 1).padStart(7)} ms/s   ${fmt(o?.opsPerSecond ?? 0, 1).padStart(7)} → ${fmt(w.opsPerSecond, 1).padStart(7)} ops/s`;
  }),
  `partners               without the pusher   with the pusher   with ÷ without`,
  `  requests             ${fmt(partnersWithout.requests).padStart(18)}   ${fmt(partnersWith.requests).padStart(15)}`,
  `  p50                  ${ms(partnersWithout.p50).padStart(18)}   ${ms(partnersWith.p50).padStart(15)}   ${fmt(partnersWith.p50 / partnersWithout.p50, 2)}`,
  `  p99                  ${ms(partnersWithout.p99).padStart(18)}   ${ms(partnersWith.p99).padStart(15)}   ${fmt(partnersWith.p99 / partnersWithout.p99, 2)}`,
  `  errors               ${fmt(partnersWithout.errors).padStart(18)}   ${fmt(partnersWith.errors).padStart(15)}`,
  `  machine CPU busy     ${`${fmt(cpuWithout.machineBusy * 100)}%`.padStart(18)}   ${`${fmt(cpuWith.machineBusy * 100)}%`.padStart(15)}`,
  ...['mongod', 'query service', 'projector', 'bench (load)'].map((name) => {
    const a = coresOf(cpuWithout, name)?.cores ?? NaN;
    const b = coresOf(cpuWith, name)?.cores ?? NaN;
    return `  ${`${name} cores`.padEnd(21)}${fmt(a, 2).padStart(18)}   ${fmt(b, 2).padStart(15)}   ${fmt(b / a, 2)}`;
  }),
  `  partner p99 by pair: ${pairs.map((p) => `phases ${p.phases.join('/')} ${ms(p.withoutP99)} → ${ms(p.withP99)} (${fmt(p.ratio, 2)})`).join('; ')}`,
  `first logins before the window: ${fmt(coldStart.loggedIn)} of ${fmt(credentialCount)} partners in ${fmt(coldStart.ms / 1000, 1)} s` +
    (coldStart.retried.size > 0 ? ` (failures asked again: ${[...coldStart.retried].map(([kind, n]) => `${kind} ${fmt(n)}`).join(', ')})` : '') +
    (coldStart.failed.size > 0 ? ` (failed: ${[...coldStart.failed].map(([kind, n]) => `${kind} ${fmt(n)}`).join(', ')})` : '') +
    (coldStart.gaveUp > 0 ? ` (not logged in when the bench gave up, ${fmt((loginSpreadMs + 300_000) / 1000)} s after the first: ${fmt(coldStart.gaveUp)})` : '') +
    `; load average at each phase's end: ${phases.map((p) => fmt(p.loadAverage ?? NaN, 1)).join(', ')}`,
  '',
];
process.stdout.write(lines.join('\n'));
const resultsName = `push${pollIntervalMs === 2000 ? '' : `-poll-${pollIntervalMs}ms`}${quick ? '-quick' : ''}`;
const resultsFile = writeResults(resultsName, {
  settings: {
    minutes,
    phases: phaseCount,
    phaseSeconds: phaseMs / 1000,
    subscriptions: subscriptionCount,
    receivers: receiverCount,
    clientsPerSubscription,
    pollIntervalMs,
    requestsPerReceiver,
    drainSeconds,
    orders,
    clients,
    credentials: credentialCount,
    eventsPerSecond,
    partitions,
    database: load.database,
  },
  pushLag: { perNotification: lag, perPackage: { ...packageLag, counted: counted.length, delivered: delivered.length, withoutPurchaseOrder, voided, repeatedTrackingNumbers }, untilDeliveryStart: wait, delivery: send, pollCycle: cycle },
  freshness: {
    withPusher: { p50Seconds: freshness(withPusher, 0.5).value, p99Seconds: freshness(withPusher, 0.99).value },
    withoutPusher: { p50Seconds: freshness(withoutPusher, 0.5).value, p99Seconds: freshness(withoutPusher, 0.99).value },
  },
  pusher: {
    notificationsAccepted: accepted,
    notificationsPerSecond: accepted / pushSeconds,
    attempts: outcomes,
    unchanged,
    parked,
    fullPolls,
    attemptDurationSeconds: { p50: attemptQuantile(0.5).value, p99: attemptQuantile(0.99).value },
    cores: pusherCpu?.cores,
    eventLoopCores: pusherCpu?.mainThreadCores,
    peakRssMiB: peakRssMiB['pusher'],
    secondsToWorkEverySubscription: withPusher.map((p) => (p.startedMs ?? 0) / 1000),
  },
  receiversCores: receiversCpu?.cores,
  store: { without: storeWithout, with: storeWith },
  partners: { without: partnersWithout, with: partnersWith, p50Ratio: partnersWith.p50 / partnersWithout.p50, p99Ratio: partnersWith.p99 / partnersWithout.p99, pairs },
  cpu: { without: cpuWithout, with: cpuWith },
  phases: phases.map((p) => ({ index: p.index + 1, pusher: p.pusher, seconds: ((p.to ?? p.from) - p.from) / 1000, loadAverage: p.loadAverage, partners: partnerFigures([p]), notifications: p.notifications.length, accepted: p.accepted })),
  firstLogins: { partners: credentialCount, loggedIn: coldStart.loggedIn, seconds: coldStart.ms / 1000, busyAnswers: coldStart.busy, retried: Object.fromEntries(coldStart.retried), failed: Object.fromEntries(coldStart.failed), gaveUp: coldStart.gaveUp },
});
process.stdout.write(`figures in ${resultsFile}\n`);

say('stopping the children and removing what this run created');
await run.cleanUp();
