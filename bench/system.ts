// npm run bench -- system   (or: npx tsx bench/system.ts [--minutes 10] [--orders 300000]
//                            [--credentials 1000] [--events-per-second 1000] [--partitions 6] [--drain-seconds 120]
//                            [--base <checkout>])
//
// The whole system at a supplier's load, for --minutes: `ossn serve` and `ossn projector` as child
// processes over an order book of --orders sales orders (300 a client, bench/support/seed.ts, in
// the read-model version the query service reads), while
//  - --credentials partners (credentials of the real credential store, each linked to one client)
//    each poll queryType 3 once a minute, order status then shipments, from the time of their
//    previous poll, over SOAP or JSON (alternating by credential and minute: all four kinds alike);
//  - the ERP publishes --events-per-second contract events (demo sales orders of those clients,
//    validated and keyed as `ossn publish` does) to a topic of this run, which the projector folds.
// Prints partner latency p50/p99 (overall and per kind), requests and errors by kind, projection
// freshness p50/p99 (the projector's ossn_projector_freshness_seconds, bucket deltas between scrapes),
// events published and applied, CPU seconds and peak RSS of each process, which part saturates
// first and the event rate that held. Goals: partner p99 ≤ 50 ms, freshness p99 ≤ 1 s, no errors.
// Servers: KAFKA_BROKERS and MONGODB_URI (and REDIS_URL) when given, else the local stack.
// --base <checkout> runs another checkout's `ossn` (the version a change started from, its
// dependencies installed) as the two children, its figures in bench/results/system-base.json.
// The order book and the credentials (1,000 scrypt hashes) are kept for the next run; the topics,
// the consumer group and the sales orders this run's events created are removed at the end.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Db } from 'mongodb';
import { generateDemoEvents } from '../services/ossn/demo-events/demo-events.js';
import { deadLetterTopic } from '../contracts/transport.js';
import { ensureStack, stackStatus } from '../scripts/stack/stack.js';
import { CredentialStore, credentialsCollection } from '../services/adapters/mongodb/credential-store.js';
import { hashPassword } from '../services/domain/credentials/password-hash.js';
import { createKafka } from '../services/adapters/kafka/client.js';
import { connectProducer } from '../services/adapters/kafka/producer.js';
import { groupLag } from '../test/support/kafka-progress.js';
import { ensureTopics } from '../services/adapters/kafka/topics.js';
import { createLogger } from '../services/plumbing/logging/logger.js';
import { publishNdjson } from '../services/adapters/kafka/publish-events.js';
import { connectMongo } from '../services/adapters/mongodb/connect.js';
import { readActiveVersion } from '../services/adapters/mongodb/active-version.js';
import { withDeadline } from '../services/plumbing/lifecycle/deadline.js';
import { sampleCpu, type CpuSample, type WatchedCpu } from './support/cpu.js';
import { PartnerClient, pollKinds, type PartnerLogin, type PollKind, type PollResult } from './support/partner-client.js';
import { MemoryWatch } from './support/process-memory.js';
import { counterSum, histogramDelta, scrape, type Scrape } from './support/prometheus.js';
import { ossnEntry as ossnEntryOf } from './support/ossn-entry.js';
import { startOssnProcess } from './support/ossn-process.js';
import { resultsDir, writeResults } from './support/results.js';
import { clientId, ensureSeeded, seededReadModelVersion } from './support/seed.js';
import { quantile } from './support/stats.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    orders: { type: 'string', default: '300000' },
    credentials: { type: 'string', default: '1000' },
    'events-per-second': { type: 'string', default: '1000' },
    partitions: { type: 'string', default: '6' },
    'drain-seconds': { type: 'string', default: '120' },
    base: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const orders = Number(values.orders);
const credentialCount = Number(values.credentials);
const eventsPerSecond = Number(values['events-per-second']);
const partitions = Number(values.partitions);
const drainSeconds = Number(values['drain-seconds']);
if (!(minutes > 0) || !(eventsPerSecond >= 0) || !(drainSeconds >= 0)) throw new Error('--minutes takes a number above 0, --events-per-second and --drain-seconds one of at least 0');
for (const n of [orders, credentialCount, partitions]) if (!Number.isInteger(n) || n < 1) throw new Error(`--orders, --credentials and --partitions take whole numbers of at least 1, got ${n}`);

// Goals of the issue, printed beside the figures.
const GOALS = { partnerP99Ms: 50, freshnessP99Seconds: 1, errors: 0 };
const ORDERS_PER_CLIENT = 300; // as the lookups bench: an answer is the same size at every order book
const SEED = 15;
const REQUEST_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 180_000;
const STOP_GRACE_MS = 30_000;
const clients = Math.max(1, Math.round(orders / ORDERS_PER_CLIENT));
const windowMs = minutes * 60_000;
const run = randomBytes(3).toString('hex');
// Sales orders of this run's events; removed at the end (and any an interrupted run left).
const runPrefix = 'BENCH-SYSTEM-';
const salesOrderPrefix = `${runPrefix}${run}-`;
const topic = `bench.system.${run}`;
const group = `bench-system-${run}`;
const database = `ossn_bench_system_${orders}`;
const ossnEntry = ossnEntryOf(values.base);
const logger = createLogger('bench', 'warn');
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-');

// ---- cleaning up, also on Ctrl-C: children first, then what this run created (each bounded)
const children = new Map<string, ChildProcess>();
const cleanups: { what: string; work: () => Promise<unknown> }[] = [];
let cleaning: Promise<void> | undefined;

async function stopChild(name: string, child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  await withDeadline(exited, STOP_GRACE_MS, `stopping ${name}`).catch(async () => {
    say(`${name} did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM: SIGKILL`);
    child.kill('SIGKILL');
    await withDeadline(exited, 5_000, `killing ${name}`).catch(() => undefined);
  });
}

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map(([name, child]) => stopChild(name, child)));
    for (const { what, work } of cleanups.reverse()) {
      await withDeadline(work(), 30_000, what).catch((error: unknown) => say(`clean-up: ${what}: ${error instanceof Error ? error.message : String(error)}`));
    }
  })();
  return cleaning;
}

/** Set on Ctrl-C: the publisher and the partners stop, so nothing sends through what is being closed. */
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (cleaning) {
      say(`${signal} again: leaving at once`);
      process.exit(130);
    }
    stopping = true;
    say(`${signal}: stopping the children and removing this run's topics and sales orders`);
    void cleanUp().finally(() => process.exit(130));
  });
}
// A failure anywhere still cleans up; while cleaning, what breaks because of it is expected.
process.on('uncaughtException', (error) => {
  if (cleaning) return;
  stopping = true;
  process.stderr.write(`${error.stack ?? String(error)}\n`);
  void cleanUp().finally(() => process.exit(1));
});
// Whatever ends this process, no child outlives it.
process.on('exit', () => {
  for (const child of children.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

// ---- servers, order book, credentials
const stackGiven = Boolean(process.env.KAFKA_BROKERS && process.env.MONGODB_URI);
const env = stackGiven
  ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS as string, MONGODB_URI: process.env.MONGODB_URI as string, REDIS_URL: process.env.REDIS_URL }
  : await ensureStack();
const mongo = await connectMongo(env.MONGODB_URI, 'bench-system');
cleanups.push({ what: 'closing MongoDB', work: () => mongo.close() });
const db = mongo.db(database);
const seeded = await ensureSeeded(db, { clients, orders, bigOrders: 0, seed: SEED }, (line) => say(line));
// `ossn serve` answers from the active version (its record, else READ_MODEL_VERSION): it must be the seeded one.
const active = await readActiveVersion(db, seededReadModelVersion);
if (active.version !== seededReadModelVersion) throw new Error(`${database} records version ${active.version} as active; the order book is seeded in version ${seededReadModelVersion}`);

async function removeRunSalesOrders(prefix: string): Promise<number> {
  const filter = { salesOrderNumber: { $regex: `^${prefix}` } };
  const [status, shipments] = await Promise.all([seeded.collections.orderStatus.deleteMany(filter), seeded.collections.shipments.deleteMany(filter)]);
  return status.deletedCount + shipments.deletedCount;
}
const leftovers = await removeRunSalesOrders(runPrefix);
if (leftovers > 0) say(`removed ${leftovers} documents an earlier, interrupted run left`);
cleanups.push({ what: "removing this run's sales orders", work: () => removeRunSalesOrders(salesOrderPrefix) });

/** The partners' credentials, created once per order book (a scrypt hash each) and reused after. */
async function ensureCredentials(target: Db): Promise<PartnerLogin[]> {
  const logins = Array.from({ length: credentialCount }, (_, i) => ({
    id: `bench-system-${String(i + 1).padStart(5, '0')}`,
    password: `bench-system-password-${i + 1}`,
    // Each partner from an address of its own, as in production: from one address, more than 20
    // password checks in flight at once would meet the failed-login limit's reservations.
    address: `127.${2 + Math.floor(i / 250)}.${1 + (i % 250)}.1`,
  }));
  const meta = target.collection<{ _id: string; count: number; clients: number }>('bench_meta');
  const made = await meta.findOne({ _id: 'system-credentials' });
  const have = made && made.clients === clients ? made.count : 0;
  if (have >= credentialCount) {
    say(`reusing ${credentialCount} credentials in ${database}`);
    return logins;
  }
  const store = new CredentialStore(credentialsCollection(target));
  const started = performance.now();
  say(`creating credentials ${have + 1} to ${credentialCount} (a scrypt hash each)`);
  // A few at a time: scrypt runs on libuv's thread pool.
  const lanes = 4;
  let next = have;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let i = next++; i < credentialCount; i = next++) {
        const login = logins[i] as PartnerLogin;
        await store.upsert({ id: login.id, passwordHash: await hashPassword(login.password), scopes: ['order_status', 'osn'], clientIds: [clientId(i % clients)] });
        if ((i + 1) % 100 === 0) say(`  ${i + 1} credentials (${fmt((performance.now() - started) / 1000)} s)`);
      }
    }),
  );
  await meta.updateOne({ _id: 'system-credentials' }, { $set: { count: credentialCount, clients } }, { upsert: true });
  return logins;
}
const logins = await ensureCredentials(db);

// ---- the topic and the two processes
const kafka = createKafka(env.KAFKA_BROKERS.split(','), 'bench-system', logger);
await ensureTopics(kafka, topic, partitions);
{
  // Consumer groups a killed run left (a live run's group has members and is refused).
  const admin = kafka.admin();
  await admin.connect();
  const stale = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith('bench-system-') && id !== group);
  if (stale.length > 0) await admin.deleteGroups(stale).catch(() => undefined);
  await admin.disconnect();
}
cleanups.push({
  what: 'deleting the topics and the consumer group',
  work: async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] });
      await admin.deleteGroups([group]).catch(() => undefined);
    } finally {
      await admin.disconnect();
    }
  },
});

const memory = new MemoryWatch();
const cpuWatched: WatchedCpu[] = [{ name: 'bench (load)', pid: process.pid }];
memory.watch({ name: 'bench (load)', pid: process.pid });

/**
 * `ossn <command>` with `childEnv`; resolves with the URLs of its `readyMessage` log line (`url`, and
 * `opsUrl` where the probes are served apart from it) once it is ready (/readyz 200).
 */
async function startOssn(command: 'serve' | 'projector', name: string, childEnv: Record<string, string>, readyMessage: string): Promise<{ child: ChildProcess; url: string; opsUrl: string }> {
  const started = await startOssnProcess({
    entry: ossnEntry,
    command,
    env: childEnv,
    readyMessage,
    logFile: resolve(resultsDir, `system-${command}.log`),
    timeoutMs: START_TIMEOUT_MS,
    spawned: (child) => children.set(name, child),
    // Its Ctrl-C handler stops the projector with one SIGTERM, so that it leaves its group.
    ownProcessGroup: true,
  });
  memory.watch({ name, pid: started.child.pid as number });
  cpuWatched.push({ name, pid: started.child.pid as number });
  return started;
}

const storeEnv = { MONGODB_URI: env.MONGODB_URI, MONGODB_DATABASE: database, READ_MODEL_VERSION: String(seededReadModelVersion), LOG_LEVEL: 'info' };
say(`starting ossn projector (topic ${topic}) and ossn serve over ${database}`);
const [projector, query] = await Promise.all([
  startOssn(
    'projector',
    'projector',
    { ...storeEnv, KAFKA_BROKERS: env.KAFKA_BROKERS, OSSN_TOPIC: topic, OSSN_TOPIC_PARTITIONS: String(partitions), OSSN_CONSUMER_GROUP: group, OSSN_METRICS_HOST: '127.0.0.1', OSSN_METRICS_PORT: '0' },
    'projector metrics and probes listening',
  ),
  startOssn('serve', 'query service', { ...storeEnv, HOST: '127.0.0.1', PORT: '0', OPS_PORT: '0', ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}) }, 'query service listening'),
]);
const serverLabels: Record<string, string> = { kafka: 'Kafka', mongodb: 'mongod', redis: 'Redis' };
for (const server of await stackStatus()) {
  if (server.pid === undefined) continue;
  const name = serverLabels[server.name] ?? server.name;
  memory.watch({ name, pid: server.pid, group: true });
  cpuWatched.push({ name, pid: server.pid, group: true });
}

// ---- the ERP: demo sales orders of the order book's clients, in small generated chunks (a
// large one would stall this process's polls), each under a sales order number of this run.
const CLIENTS_PER_CHUNK = Math.min(clients, 100);
function* erpLines(): Generator<string> {
  for (let chunk = 0; ; chunk++) {
    const first = (chunk * CLIENTS_PER_CHUNK) % clients;
    for (const event of generateDemoEvents({ clients: CLIENTS_PER_CHUNK, orders: 1, seed: SEED * 1_000_003 + chunk })) {
      const index = (first + Number(event.clientId.slice('CLIENT-'.length)) - 1) % clients;
      yield JSON.stringify({ ...event, clientId: clientId(index), salesOrderNumber: `${salesOrderPrefix}${chunk}-${event.salesOrderNumber}` });
    }
  }
}
const producer = await connectProducer(kafka);
cleanups.push({ what: 'closing the producer', work: () => producer.close() });

// ---- the measured window
interface Tally {
  requests: number;
  latencies: Record<PollKind, number[]>;
  outcomes: Map<string, number>;
}
const newTally = (): Tally => ({ requests: 0, latencies: Object.fromEntries(pollKinds.map((k) => [k, [] as number[]])) as Record<PollKind, number[]>, outcomes: new Map() });
const whole = newTally();
let thisMinute = newTally();
function record(result: PollResult): void {
  for (const tally of [whole, thisMinute]) {
    tally.requests++;
    tally.latencies[result.kind].push(result.ms);
    tally.outcomes.set(result.outcome, (tally.outcomes.get(result.outcome) ?? 0) + 1);
  }
}
const errorsOf = (tally: Tally) => [...tally.outcomes].filter(([outcome]) => outcome !== 'ok');
const sortedAll = (tally: Tally) => Object.values(tally.latencies).flat().sort((a, b) => a - b);

const metricsUrl = `${projector.url}/metrics`;
const partnerClient = new PartnerClient(query.url, 2, REQUEST_TIMEOUT_MS);

// ---- first logins, before the window
// A restarted query service checks every partner's password once (scrypt, about 70 ms of a core
// each) before its cache answers them: a thousand partners cost about 70 CPU seconds, which a
// 2-core machine under the steady load cannot give within one minute. The check bound refuses what
// it cannot run as busy (503 / Internal error with Retry-After 1); each partner here does what a
// well-behaved client does, asks again after Retry-After. How long it took and how many busy
// answers came are printed; the window measures the steady state after it.
const LOGIN_DEADLINE_MS = 10 * 60_000;
const coldStart = { started: Date.now(), ms: 0, busy: 0, failed: new Map<string, number>(), loggedIn: 0, gaveUp: 0 };
say(`first logins: ${credentialCount} partners, spread over a minute, each asking again after Retry-After while busy`);
await Promise.all(
  logins.map(async (login, index) => {
    await sleep((index / credentialCount) * 60_000);
    const kind: PollKind = index % 2 === 0 ? 'status SOAP' : 'status JSON';
    while (!stopping && Date.now() - coldStart.started < LOGIN_DEADLINE_MS) {
      const { outcome, retryAfterSeconds } = await partnerClient.poll(kind, login, new Date(coldStart.started - 60_000).toISOString());
      if (outcome === 'ok') return void coldStart.loggedIn++;
      if (retryAfterSeconds === undefined) return void coldStart.failed.set(outcome, (coldStart.failed.get(outcome) ?? 0) + 1);
      coldStart.busy++;
      await sleep(retryAfterSeconds * 1_000);
    }
    coldStart.gaveUp++;
  }),
);
coldStart.ms = Date.now() - coldStart.started;
say(`first logins: ${fmt(coldStart.loggedIn)} of ${fmt(credentialCount)} in ${fmt(coldStart.ms / 1000, 1)} s, ${fmt(coldStart.busy)} busy answers asked again`);

const scrapeAtStart = await scrape(metricsUrl);
const cpuAtStart = sampleCpu(cpuWatched);
const windowStart = Date.now();
const windowEnd = windowStart + windowMs;
say(`${minutes} min from ${new Date(windowStart).toISOString()}: ${credentialCount} partners polling, ${fmt(eventsPerSecond)} events/s`);

let published = 0;
let refused = 0;
async function erp(): Promise<void> {
  const lines = erpLines();
  const started = performance.now();
  // At most a second's events in one go when behind: the rate stays even.
  const most = Math.max(1, Math.ceil(eventsPerSecond));
  while (!stopping && Date.now() < windowEnd) {
    const due = Math.min(most, Math.floor((eventsPerSecond * (performance.now() - started)) / 1000) - published - refused);
    if (due <= 0) {
      await sleep(20);
      continue;
    }
    const batch: string[] = [];
    for (let i = 0; i < due; i++) batch.push(lines.next().value as string);
    const report = await publishNdjson(batch, producer, topic);
    published += report.sent;
    refused += report.refused.length;
  }
}

/** One partner: once a minute, at its own second of the minute, status then shipments from its previous polls' times. */
async function partner(index: number): Promise<void> {
  const login = logins[index] as PartnerLogin;
  const offsetMs = (index / credentialCount) * 60_000;
  let statusSince = new Date(windowStart - 60_000).toISOString();
  let shipmentsSince = statusSince;
  for (let minute = 0; ; minute++) {
    const at = windowStart + offsetMs + minute * 60_000;
    if (at >= windowEnd) return;
    await sleep(at - Date.now());
    if (stopping) return;
    const over = (index + minute) % 2 === 0 ? 'SOAP' : 'JSON';
    // After a failed poll a partner asks again from the same time, or it would miss changes.
    const statusAt = new Date().toISOString();
    const status = await partnerClient.poll(`status ${over}`, login, statusSince);
    record(status);
    if (status.outcome === 'ok') statusSince = statusAt;
    const shipmentsAt = new Date().toISOString();
    const shipments = await partnerClient.poll(`shipments ${over}`, login, shipmentsSince);
    record(shipments);
    if (shipments.outcome === 'ok') shipmentsSince = shipmentsAt;
  }
}

// A line a minute, so that a long run shows how it goes.
let minuteNumber = 0;
let cpuLast = cpuAtStart;
const reporter = setInterval(() => {
  minuteNumber++;
  const tally = thisMinute;
  thisMinute = newTally();
  const cpu = sampleCpu(cpuWatched);
  const busy = (cpu.machineBusy - cpuLast.machineBusy) / (cpu.machineAll - cpuLast.machineAll);
  const perProcess = Object.keys(cpu.total)
    .map((name) => `${name} ${fmt((cpu.total[name]! - (cpuLast.total[name] ?? 0)) / 60, 2)}`)
    .join(', ');
  cpuLast = cpu;
  const sorted = sortedAll(tally);
  void groupLag(kafka, group, topic)
    .then((lag) => String(lag), () => '?')
    .then((lag) =>
      say(
        `minute ${minuteNumber}: ${tally.requests} requests (${errorsOf(tally).reduce((n, [, c]) => n + c, 0)} errors), p50 ${fmt(quantile(sorted, 0.5), 1)} ms, p99 ${fmt(quantile(sorted, 0.99), 1)} ms; ` +
          `${fmt(published)} events published, projector lag ${lag}; machine CPU ${fmt(busy * 100)}% (cores: ${perProcess})`,
      ),
    );
}, 60_000);

await Promise.all([erp(), ...logins.map((_, index) => partner(index))]);
clearInterval(reporter);
const windowSeconds = (Date.now() - windowStart) / 1000;
const cpuAtEnd = sampleCpu(cpuWatched);
const scrapeAtWindowEnd = await scrape(metricsUrl);
const lagAtWindowEnd = Number(await groupLag(kafka, group, topic));

// The projector's backlog, if any, is waited for (bounded): every event's freshness counts.
say(`window over; the projector is ${fmt(lagAtWindowEnd)} events behind; waiting up to ${drainSeconds} s for it`);
const drainStart = performance.now();
let lagAfterDrain = lagAtWindowEnd;
while (lagAfterDrain > 0 && performance.now() - drainStart < drainSeconds * 1000) {
  await sleep(500);
  lagAfterDrain = Number(await groupLag(kafka, group, topic));
}
const drainedSeconds = (performance.now() - drainStart) / 1000;
const scrapeAtEnd = await scrape(metricsUrl);
const peakRssMiB = memory.peaksMiB();
memory.stop();
partnerClient.close();

// ---- figures
const applied = (s: Scrape) => counterSum(s, 'ossn_projector_events_applied_total');
const skipped = (s: Scrape) => counterSum(s, 'ossn_projector_events_skipped_total');
const deadLetters = (s: Scrape) => counterSum(s, 'ossn_projector_dead_letters_total');
const freshness = histogramDelta(scrapeAtStart, scrapeAtEnd, 'ossn_projector_freshness_seconds');
const freshP50 = freshness.quantile(0.5);
const freshP99 = freshness.quantile(0.99);
const appliedInWindow = applied(scrapeAtWindowEnd) - applied(scrapeAtStart);
const appliedInAll = applied(scrapeAtEnd) - applied(scrapeAtStart);
const all = sortedAll(whole);
const p50 = quantile(all, 0.5);
const p99 = quantile(all, 0.99);
const errors = errorsOf(whole);
const errorCount = errors.reduce((n, [, c]) => n + c, 0);
const publishRate = published / windowSeconds;

function cpuFigures(start: CpuSample, end: CpuSample) {
  return Object.keys(end.total).map((name) => {
    const seconds = end.total[name]! - (start.total[name] ?? 0);
    const main = end.mainThread[name] === undefined ? undefined : end.mainThread[name]! - (start.mainThread[name] ?? 0);
    return { name, cpuSeconds: seconds, cores: seconds / windowSeconds, mainThreadCores: main === undefined ? undefined : main / windowSeconds, peakRssMiB: peakRssMiB[name] ?? 0 };
  });
}
const processes = cpuFigures(cpuAtStart, cpuAtEnd);
const machineBusySeconds = cpuAtEnd.machineBusy - cpuAtStart.machineBusy;
const machineSeconds = cpuAtEnd.machineAll - cpuAtStart.machineAll;
const machineCores = machineSeconds / windowSeconds;
const machineBusy = machineBusySeconds / machineSeconds;
const unwatchedSeconds = machineBusySeconds - processes.reduce((sum, p) => sum + p.cpuSeconds, 0);

// What gives first: the machine's cores all busy, or a Node process's event loop (one core at most).
const SATURATED = 0.9;
const busiest = [...processes].sort((a, b) => b.cores - a.cores)[0];
const loops = processes.filter((p) => (p.mainThreadCores ?? 0) >= SATURATED);
// A Node process's CPU beyond its main thread is its worker threads' (libuv's pool: scrypt, say).
const offLoop = busiest?.mainThreadCores === undefined ? '' : `, ${fmt(busiest.cores - busiest.mainThreadCores, 2)} of them off its event loop`;
const saturation =
  machineBusy >= SATURATED
    ? `the machine's CPU: ${fmt(machineBusy * 100)}% of ${fmt(machineCores, 1)} cores busy; the largest share is ${busiest?.name} (${fmt(busiest?.cores ?? NaN, 2)} cores${offLoop})` +
      (loops.length > 0 ? `; event loop at its core: ${loops.map((p) => `${p.name} (${fmt(p.mainThreadCores ?? NaN, 2)})`).join(', ')}` : '')
    : loops.length > 0
      ? `the event loop of ${loops.map((p) => `${p.name} (${fmt(p.mainThreadCores ?? NaN, 2)} of a core)`).join(', ')}`
      : `nothing: the machine's CPU was ${fmt(machineBusy * 100)}% busy, ${busiest?.name} the busiest process (${fmt(busiest?.cores ?? NaN, 2)} cores)`;
// The projector held the rate when it ended the window about a second behind at most, and the publisher reached its target.
const publisherHeld = publishRate >= eventsPerSecond * 0.98;
const projectorHeld = lagAtWindowEnd <= Math.max(partitions, eventsPerSecond * GOALS.freshnessP99Seconds);
const heldRate = publisherHeld && projectorHeld
  ? `${fmt(publishRate)} events/s held (the target; the projector ended the window ${fmt(lagAtWindowEnd)} events behind). Try a higher --events-per-second for the limit.`
  : !publisherHeld
    ? `the publisher reached ${fmt(publishRate)} of ${fmt(eventsPerSecond)} events/s; the projector applied ${fmt(appliedInWindow / windowSeconds)} events/s meanwhile${projectorHeld ? ' and kept up' : ''}`
    : `the projector applied ${fmt(appliedInWindow / windowSeconds)} events/s under this load (${fmt(lagAtWindowEnd)} behind at the end): about the highest event rate that held`;

const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
const freshText = (q: { value: number; above: boolean }) => (Number.isNaN(q.value) ? '-' : `${q.above ? '> ' : ''}${fmt(q.value, 3)} s`);
const kindRows = pollKinds.map((kind) => {
  const sorted = [...whole.latencies[kind]].sort((a, b) => a - b);
  return { kind, requests: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
});
const nameWidth = Math.max(...processes.map((p) => p.name.length), 'machine'.length);
const lines = [
  '',
  `==== system bench: ${fmt(windowSeconds / 60, 1)} min, ${fmt(orders)} sales orders (${fmt(clients)} clients) in ${database}, ${fmt(credentialCount)} credentials polling queryType 3 once a minute, ${fmt(eventsPerSecond)} events/s target ====`,
  `first logins before the window: ${fmt(coldStart.loggedIn)} of ${fmt(credentialCount)} partners in ${fmt(coldStart.ms / 1000, 1)} s; ${fmt(coldStart.busy)} answers with Retry-After asked again after it` +
    (coldStart.failed.size > 0 ? `; failed: ${[...coldStart.failed].map(([kind, n]) => `${kind} ${fmt(n)}`).join(', ')}` : '') +
    (coldStart.gaveUp > 0 ? `; still refused when the bench gave up after ${LOGIN_DEADLINE_MS / 60_000} min: ${fmt(coldStart.gaveUp)}` : ''),
  `partner requests: ${fmt(whole.requests)}; p50 ${fmt(p50, 1)} ms, p99 ${fmt(p99, 1)} ms (goal p99 ≤ ${GOALS.partnerP99Ms} ms: ${met(p99 <= GOALS.partnerP99Ms)})`,
  ...kindRows.map((r) => `  ${r.kind.padEnd(15)} ${fmt(r.requests).padStart(7)} requests, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms`),
  `errors: ${fmt(errorCount)} (goal ${GOALS.errors}: ${met(errorCount <= GOALS.errors)})${errors.length > 0 ? `; by kind: ${errors.map(([kind, n]) => `${kind} ${fmt(n)}`).join(', ')}` : ''}`,
  `events: published ${fmt(published)} (${fmt(publishRate)}/s of ${fmt(eventsPerSecond)}/s target), refused ${fmt(refused)}; applied ${fmt(appliedInAll)} (${fmt(appliedInWindow)} within the window: ${fmt(appliedInWindow / windowSeconds)}/s), ` +
    `skipped ${fmt(skipped(scrapeAtEnd) - skipped(scrapeAtStart))}, dead letters ${fmt(deadLetters(scrapeAtEnd) - deadLetters(scrapeAtStart))}; ` +
    `projector lag ${fmt(lagAtWindowEnd)} at the window's end, ${fmt(lagAfterDrain)} after ${fmt(drainedSeconds, 1)} s more`,
  `freshness (publication to visible, ${fmt(freshness.count)} events): p50 ${freshText(freshP50)}, p99 ${freshText(freshP99)} (goal p99 ≤ ${GOALS.freshnessP99Seconds} s: ${met(!freshP99.above && freshP99.value <= GOALS.freshnessP99Seconds)})`,
  `CPU over the ${fmt(windowSeconds)} s window and peak RSS:`,
  `  ${'process'.padEnd(nameWidth)}  CPU s    cores  event loop  peak RSS`,
  ...processes.map(
    (p) =>
      `  ${p.name.padEnd(nameWidth)} ${fmt(p.cpuSeconds, 1).padStart(7)} ${fmt(p.cores, 2).padStart(7)} ${(p.mainThreadCores === undefined ? '' : fmt(p.mainThreadCores, 2)).padStart(11)} ${fmt(p.peakRssMiB).padStart(6)} MiB`,
  ),
  `  ${'machine'.padEnd(nameWidth)} ${fmt(machineBusySeconds, 1).padStart(7)} ${fmt(machineBusySeconds / windowSeconds, 2).padStart(7)}   (${fmt(machineBusy * 100)}% of ${fmt(machineCores, 1)} cores; ${fmt(unwatchedSeconds, 1)} CPU s in processes not listed)`,
  `saturates first: ${saturation}`,
  `event rate: ${heldRate}`,
  '',
];
process.stdout.write(lines.join('\n'));
const resultsFile = writeResults(values.base === undefined ? 'system' : 'system-base', {
  settings: { minutes, orders, clients, credentials: credentialCount, eventsPerSecond, partitions, database, checkout: values.base ?? 'this one' },
  goals: GOALS,
  windowSeconds,
  firstLogins: { partners: credentialCount, loggedIn: coldStart.loggedIn, seconds: coldStart.ms / 1000, busyAnswers: coldStart.busy, failed: Object.fromEntries(coldStart.failed), gaveUp: coldStart.gaveUp },
  partners: {
    requests: whole.requests,
    p50Ms: p50,
    p99Ms: p99,
    byKind: kindRows,
    errors: errorCount,
    errorsByKind: Object.fromEntries(errors),
  },
  events: {
    published,
    refused,
    publishPerSecond: publishRate,
    applied: appliedInAll,
    appliedInWindowPerSecond: appliedInWindow / windowSeconds,
    lagAtWindowEnd,
    lagAfterDrain,
    drainSeconds: drainedSeconds,
  },
  freshness: { events: freshness.count, p50Seconds: freshP50.value, p50Above: freshP50.above, p99Seconds: freshP99.value, p99Above: freshP99.above },
  processes,
  machine: { busyFraction: machineBusy, cores: machineCores, busySeconds: machineBusySeconds, unwatchedSeconds },
  saturation,
  eventRate: heldRate,
});
process.stdout.write(`figures in ${resultsFile}\n`);

say('stopping the children and removing what this run created');
await cleanUp();
