// The whole system at a supplier's load, shared by bench/system.ts and bench/push.ts: `ossn serve`
// and `ossn projector` as child processes over an order book of `orders` sales orders (300 a client,
// seed.ts, in the read-model version the query service reads), while
//  - `credentials` partners (credentials of the real credential store, each linked to one client)
//    each poll queryType 3 once a minute, order status then shipments, from the time of their
//    previous poll, over SOAP or JSON (alternating by credential and minute: all four kinds alike);
//  - the ERP publishes `eventsPerSecond` contract events (demo sales orders of those clients,
//    validated and keyed as `ossn publish` does) to a topic of this run, which the projector folds.
// Servers: KAFKA_BROKERS and MONGODB_URI (and REDIS_URL) when given, else the local stack.
// The order book and the credentials (a scrypt hash each) are kept for the next run; the topics,
// the consumer group and the sales orders this run's events created are removed at the end.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kafka } from 'kafkajs';
import type { Db, MongoClient } from 'mongodb';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { generateDemoEvents } from '../../services/ossn/demo-events/demo-events.js';
import { ensureStack, stackStatus, type StackEnv } from '../../scripts/stack/stack.js';
import { portHolder } from '../../scripts/stack/tcp-ports.js';
import { CredentialStore, credentialsCollection } from '../../services/adapters/mongodb/credential-store.js';
import { hashPassword } from '../../services/domain/credentials/password-hash.js';
import { createKafka } from '../../services/adapters/kafka/client.js';
import { connectProducer, type MessageProducer } from '../../services/adapters/kafka/producer.js';
import { ensureTopics } from '../../services/adapters/kafka/topics.js';
import { createLogger } from '../../services/plumbing/logging/logger.js';
import { publishNdjson } from '../../services/adapters/kafka/publish-events.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { readActiveVersion } from '../../services/adapters/mongodb/active-version.js';
import { groupLag } from '../../test/support/kafka-progress.js';
import type { BenchRun } from './bench-run.js';
import { sampleCpu, type CpuSample, type WatchedCpu } from './cpu.js';
import { PartnerClient, pollKinds, type PartnerLogin, type PollKind, type PollResult } from './partner-client.js';
import { MemoryWatch } from './process-memory.js';
import { ossnEntry as ossnEntryOf } from './ossn-entry.js';
import { startOssnProcess, type OssnCommand } from './ossn-process.js';
import { resultsDir } from './results.js';
import { clientId, ensureSeeded, seededReadModelVersion, type SeedSummary } from './seed.js';
import { quantile } from './stats.js';

/** The whole-system load as bench/system.ts runs it by default. */
export const SYSTEM_DEFAULTS = { orders: 300_000, credentials: 1_000, eventsPerSecond: 1_000, partitions: 6 } as const;
export const ORDERS_PER_CLIENT = 300; // as the lookups bench: an answer is the same size at every order book
const SEED = 15;
const REQUEST_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 180_000;
/** First logins give up after this: the steady state is measured after them. */
export const LOGIN_DEADLINE_MS = 10 * 60_000;

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-');

export interface SystemLoadOptions {
  /** The bench's name: in the topic, group, credential ids, sales order numbers and log files of its run. */
  name: string;
  orders: number;
  credentials: number;
  eventsPerSecond: number;
  partitions: number;
  /** The database of the order book (kept for the next run with the same parameters). */
  database: string;
  /** Another checkout whose `ossn` runs the children (bench --base). */
  base?: string | undefined;
  say: (line: string) => void;
}

/** One event as published, and when its batch was handed to the producer (ms since the epoch). */
export type PublishedListener = (events: readonly ErpEvent[], publishedAtMs: number) => void;

export interface ColdStart {
  started: number;
  ms: number;
  busy: number;
  failed: Map<string, number>;
  /** Failures asked again after a second (retryFailures), by kind. */
  retried: Map<string, number>;
  loggedIn: number;
  gaveUp: number;
}

/** A partner poll's result and when it was sent (ms since the epoch). */
export type PollListener = (result: PollResult, sentAtMs: number) => void;

export interface SystemLoad {
  env: StackEnv | { KAFKA_BROKERS: string; MONGODB_URI: string; REDIS_URL: string | undefined };
  mongo: MongoClient;
  db: Db;
  database: string;
  clients: number;
  seeded: { summary: SeedSummary };
  logins: PartnerLogin[];
  kafka: Kafka;
  topic: string;
  group: string;
  /** The bench's own process, the children and the servers, for CPU and memory. */
  cpuWatched: WatchedCpu[];
  memory: MemoryWatch;
  projector: { child: ChildProcess; url: string };
  query: { child: ChildProcess; url: string };
  metricsUrl: string;
  /** Environment of the children that read the store (MONGODB_URI, MONGODB_DATABASE, READ_MODEL_VERSION, LOG_LEVEL). */
  storeEnv: Record<string, string>;
  /** Starts another `ossn` command as a child of the run, watched for CPU and memory. */
  startOssn(command: OssnCommand, name: string, childEnv: Record<string, string>, readyMessage: string): Promise<{ child: ChildProcess; url: string; opsUrl: string }>;
  /**
   * Every partner logs in once, spread over `spreadMs` (a minute unless given), before the window
   * (see firstLogins); with `retryFailures`, a partner also asks again a second after a timeout or
   * a server error that gave no Retry-After, so the window starts with every partner logged in.
   * Partners not logged in by `deadlineMs` (LOGIN_DEADLINE_MS unless given) give up.
   */
  firstLogins(options?: { spreadMs?: number; retryFailures?: boolean; deadlineMs?: number }): Promise<ColdStart>;
  /**
   * Runs the ERP and the partners from `start` until `end` (ms since the epoch), or until stop():
   * `onPoll` gets every partner poll, `onPublished` every batch published.
   */
  runLoad(window: { start: number; end: number; onPoll: PollListener; onPublished?: PublishedListener }): LoadRun;
  close(): void;
}

export interface LoadRun {
  /** Resolves when the ERP and every partner have stopped. */
  done: Promise<void>;
  /** Ends the load early (a partner's poll in flight still ends). */
  stop(): void;
  published(): number;
  refused(): number;
}

/** Whether `pid` leads its process group (then watched as the group: a server's helpers count, and it has no event loop to show). */
function leadsGroup(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pid;
  } catch {
    return false;
  }
}

/** The process listening on `address`'s port (the stack's record unknown: servers given by the environment). */
function listenerPid(address: string): number | undefined {
  const port = Number(/:(\d+)(?:\/|$|\?)/.exec(address.replace(/^[a-z]+:\/\//, ''))?.[1]);
  if (!Number.isInteger(port) || port <= 0) return undefined;
  const holder = portHolder(port);
  const pid = holder === undefined ? undefined : Number(/^pid (\d+)/.exec(holder)?.[1]);
  return pid !== undefined && Number.isInteger(pid) ? pid : undefined;
}

export async function startSystemLoad(run: BenchRun, options: SystemLoadOptions): Promise<SystemLoad> {
  const { name, orders, credentials: credentialCount, eventsPerSecond, partitions, database, say } = options;
  const clients = Math.max(1, Math.round(orders / ORDERS_PER_CLIENT));
  const runId = randomBytes(3).toString('hex');
  // Sales orders of this run's events; removed at the end (and any an interrupted run left).
  const runPrefix = `BENCH-${name.toUpperCase()}-`;
  const salesOrderPrefix = `${runPrefix}${runId}-`;
  const topic = `bench.${name}.${runId}`;
  const group = `bench-${name}-${runId}`;
  const ossnEntry = ossnEntryOf(options.base);
  const logger = createLogger('bench', 'warn');

  // ---- servers, order book, credentials
  const stackGiven = Boolean(process.env.KAFKA_BROKERS && process.env.MONGODB_URI);
  const env = stackGiven
    ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS as string, MONGODB_URI: process.env.MONGODB_URI as string, REDIS_URL: process.env.REDIS_URL }
    : await ensureStack();
  const mongo = await connectMongo(env.MONGODB_URI, `bench-${name}`);
  run.onCleanUp('closing MongoDB', () => mongo.close());
  const db = mongo.db(database);
  const seeded = await ensureSeeded(db, { clients, orders, bigOrders: 0, seed: SEED }, say);
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
  run.onCleanUp("removing this run's sales orders", () => removeRunSalesOrders(salesOrderPrefix));

  /** The partners' credentials, created once per order book (a scrypt hash each) and reused after. */
  async function ensureCredentials(target: Db): Promise<PartnerLogin[]> {
    const logins = Array.from({ length: credentialCount }, (_, i) => ({
      id: `bench-${name}-${String(i + 1).padStart(5, '0')}`,
      password: `bench-${name}-password-${i + 1}`,
      // Each partner from an address of its own, as in production: from one address, more than 20
      // password checks in flight at once would meet the failed-login limit's reservations.
      address: `127.${2 + Math.floor(i / 250)}.${1 + (i % 250)}.1`,
    }));
    const meta = target.collection<{ _id: string; count: number; clients: number }>('bench_meta');
    const made = await meta.findOne({ _id: `${name}-credentials` });
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
    await meta.updateOne({ _id: `${name}-credentials` }, { $set: { count: credentialCount, clients } }, { upsert: true });
    return logins;
  }
  const logins = await ensureCredentials(db);

  // ---- the topic and the two processes
  const kafka = createKafka(env.KAFKA_BROKERS.split(','), `bench-${name}`, logger);
  await ensureTopics(kafka, topic, partitions);
  {
    // Consumer groups a killed run left (a live run's group has members and is refused).
    const admin = kafka.admin();
    await admin.connect();
    const stale = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(`bench-${name}-`) && id !== group);
    if (stale.length > 0) await admin.deleteGroups(stale).catch(() => undefined);
    await admin.disconnect();
  }
  run.onCleanUp('deleting the topics and the consumer group', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] });
      await admin.deleteGroups([group]).catch(() => undefined);
    } finally {
      await admin.disconnect();
    }
  });

  const memory = new MemoryWatch();
  const cpuWatched: WatchedCpu[] = [{ name: 'bench (load)', pid: process.pid }];
  memory.watch({ name: 'bench (load)', pid: process.pid });

  /**
   * `ossn <command>` with `childEnv`; resolves with the URLs of its `readyMessage` log line (`url`, and
   * `opsUrl` where the probes are served apart from it) once it is ready (/readyz 200).
   */
  async function startOssn(command: OssnCommand, childName: string, childEnv: Record<string, string>, readyMessage: string): Promise<{ child: ChildProcess; url: string; opsUrl: string }> {
    const started = await startOssnProcess({
      entry: ossnEntry,
      command,
      env: childEnv,
      readyMessage,
      logFile: resolve(resultsDir, `${name}-${command}.log`),
      timeoutMs: START_TIMEOUT_MS,
      spawned: (child) => run.children.set(childName, child),
      // Its Ctrl-C handler stops the projector with one SIGTERM, so that it leaves its group.
      ownProcessGroup: true,
    });
    memory.watch({ name: childName, pid: started.child.pid as number });
    cpuWatched.push({ name: childName, pid: started.child.pid as number });
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
    const label = serverLabels[server.name] ?? server.name;
    if (server.pid !== undefined) {
      memory.watch({ name: label, pid: server.pid, group: true });
      cpuWatched.push({ name: label, pid: server.pid, group: true });
      continue;
    }
    // Servers given by the environment: the process listening on the address given, if it is this machine's.
    const given = server.name === 'kafka' ? env.KAFKA_BROKERS.split(',')[0] : server.name === 'mongodb' ? env.MONGODB_URI : env.REDIS_URL;
    const pid = given && /(^|\/\/|@)(127\.0\.0\.1|localhost)[:/]/.test(given) ? listenerPid(given) : undefined;
    if (pid === undefined) continue;
    const group = leadsGroup(pid);
    memory.watch({ name: label, pid, group });
    cpuWatched.push({ name: label, pid, group });
  }

  // ---- the ERP: demo sales orders of the order book's clients, in small generated chunks (a
  // large one would stall this process's polls), each under a sales order number of this run.
  const CLIENTS_PER_CHUNK = Math.min(clients, 100);
  function* erpEvents(): Generator<{ event: ErpEvent; line: string }> {
    for (let chunk = 0; ; chunk++) {
      const first = (chunk * CLIENTS_PER_CHUNK) % clients;
      for (const generated of generateDemoEvents({ clients: CLIENTS_PER_CHUNK, orders: 1, seed: SEED * 1_000_003 + chunk })) {
        const index = (first + Number(generated.clientId.slice('CLIENT-'.length)) - 1) % clients;
        const event = { ...generated, clientId: clientId(index), salesOrderNumber: `${salesOrderPrefix}${chunk}-${generated.salesOrderNumber}` } as ErpEvent;
        yield { event, line: JSON.stringify(event) };
      }
    }
  }
  const producer: MessageProducer = await connectProducer(kafka);
  run.onCleanUp('closing the producer', () => producer.close());

  const partnerClient = new PartnerClient(query.url, 2, REQUEST_TIMEOUT_MS);

  // ---- first logins, before the window
  // A restarted query service checks every partner's password once (scrypt, about 70 ms of a core
  // each) before its cache answers them: a thousand partners cost about 70 CPU seconds, which a
  // 2-core machine under the steady load cannot give within one minute. The check bound refuses what
  // it cannot run as busy (503 / Internal error with Retry-After 1); each partner here does what a
  // well-behaved client does, asks again after Retry-After. How long it took and how many busy
  // answers came are printed; the window measures the steady state after it.
  async function firstLogins({ spreadMs = 60_000, retryFailures = false, deadlineMs = LOGIN_DEADLINE_MS }: { spreadMs?: number; retryFailures?: boolean; deadlineMs?: number } = {}): Promise<ColdStart> {
    const coldStart: ColdStart = { started: Date.now(), ms: 0, busy: 0, failed: new Map<string, number>(), retried: new Map<string, number>(), loggedIn: 0, gaveUp: 0 };
    const transient = (outcome: string) => outcome.startsWith('network ') || /\(HTTP 5\d\d\)$|^HTTP 5\d\d$/.test(outcome);
    say(`first logins: ${credentialCount} partners, spread over ${fmt(spreadMs / 1000)} s, each asking again after Retry-After while busy`);
    await Promise.all(
      logins.map(async (login, index) => {
        await sleep((index / credentialCount) * spreadMs);
        const kind: PollKind = index % 2 === 0 ? 'status SOAP' : 'status JSON';
        while (!run.stopping && Date.now() - coldStart.started < deadlineMs) {
          const { outcome, retryAfterSeconds } = await partnerClient.poll(kind, login, new Date(coldStart.started - 60_000).toISOString());
          if (outcome === 'ok') return void coldStart.loggedIn++;
          if (retryAfterSeconds === undefined) {
            if (!retryFailures || !transient(outcome)) return void coldStart.failed.set(outcome, (coldStart.failed.get(outcome) ?? 0) + 1);
            coldStart.retried.set(outcome, (coldStart.retried.get(outcome) ?? 0) + 1);
            await sleep(1_000);
            continue;
          }
          coldStart.busy++;
          await sleep(retryAfterSeconds * 1_000);
        }
        coldStart.gaveUp++;
      }),
    );
    coldStart.ms = Date.now() - coldStart.started;
    const retried = [...coldStart.retried].map(([kind, n]) => `${kind} ${fmt(n)}`).join(', ');
    say(`first logins: ${fmt(coldStart.loggedIn)} of ${fmt(credentialCount)} in ${fmt(coldStart.ms / 1000, 1)} s, ${fmt(coldStart.busy)} busy answers asked again${retried ? `; failures asked again: ${retried}` : ''}`);
    return coldStart;
  }

  function runLoad({ start, end, onPoll, onPublished }: { start: number; end: number; onPoll: PollListener; onPublished?: PublishedListener }): LoadRun {
    const ended = new AbortController();
    // Every partner and the ERP wait on it at once.
    setMaxListeners(logins.length + 10, ended.signal);
    const over = () => run.stopping || ended.signal.aborted || Date.now() >= end;
    const pause = (ms: number) => sleep(Math.max(0, ms), undefined, { signal: ended.signal }).catch(() => undefined);
    let published = 0;
    let refused = 0;

    async function erp(): Promise<void> {
      const events = erpEvents();
      const started = performance.now();
      // At most a second's events in one go when behind: the rate stays even.
      const most = Math.max(1, Math.ceil(eventsPerSecond));
      while (!over()) {
        const due = Math.min(most, Math.floor((eventsPerSecond * (performance.now() - started)) / 1000) - published - refused);
        if (due <= 0) {
          await pause(20);
          continue;
        }
        const batch: { event: ErpEvent; line: string }[] = [];
        for (let i = 0; i < due; i++) batch.push(events.next().value as { event: ErpEvent; line: string });
        const at = Date.now();
        const report = await publishNdjson(
          batch.map((b) => b.line),
          producer,
          topic,
        );
        onPublished?.(
          batch.map((b) => b.event),
          at,
        );
        published += report.sent;
        refused += report.refused.length;
      }
    }

    /** One partner: once a minute, at its own second of the minute, status then shipments from its previous polls' times. */
    async function partner(index: number): Promise<void> {
      const login = logins[index] as PartnerLogin;
      const offsetMs = (index / credentialCount) * 60_000;
      let statusSince = new Date(start - 60_000).toISOString();
      let shipmentsSince = statusSince;
      for (let minute = 0; ; minute++) {
        const at = start + offsetMs + minute * 60_000;
        if (at >= end) return;
        await pause(at - Date.now());
        if (over()) return;
        const kind = (index + minute) % 2 === 0 ? 'SOAP' : 'JSON';
        // After a failed poll a partner asks again from the same time, or it would miss changes.
        const statusAt = new Date();
        const status = await partnerClient.poll(`status ${kind}`, login, statusSince);
        onPoll(status, statusAt.getTime());
        if (status.outcome === 'ok') statusSince = statusAt.toISOString();
        const shipmentsAt = new Date();
        const shipments = await partnerClient.poll(`shipments ${kind}`, login, shipmentsSince);
        onPoll(shipments, shipmentsAt.getTime());
        if (shipments.outcome === 'ok') shipmentsSince = shipmentsAt.toISOString();
      }
    }

    const done = Promise.all([erp(), ...logins.map((_, index) => partner(index))]).then(() => undefined);
    return { done, stop: () => ended.abort(), published: () => published, refused: () => refused };
  }

  return {
    env,
    mongo,
    db,
    database,
    clients,
    seeded,
    logins,
    kafka,
    topic,
    group,
    cpuWatched,
    memory,
    projector,
    query,
    metricsUrl: `${projector.url}/metrics`,
    storeEnv,
    startOssn,
    firstLogins,
    runLoad,
    close: () => partnerClient.close(),
  };
}

// ---- partner latency, tallied

export interface Tally {
  requests: number;
  latencies: Record<PollKind, number[]>;
  outcomes: Map<string, number>;
}

export const newTally = (): Tally => ({ requests: 0, latencies: Object.fromEntries(pollKinds.map((k) => [k, [] as number[]])) as Record<PollKind, number[]>, outcomes: new Map() });

export function recordPoll(tally: Tally, result: PollResult): void {
  tally.requests++;
  tally.latencies[result.kind].push(result.ms);
  tally.outcomes.set(result.outcome, (tally.outcomes.get(result.outcome) ?? 0) + 1);
}

/** The outcomes other than ok, with their counts. */
export const errorsOf = (tally: Tally) => [...tally.outcomes].filter(([outcome]) => outcome !== 'ok');
export const errorCount = (tally: Tally) => errorsOf(tally).reduce((n, [, c]) => n + c, 0);
export const sortedAll = (tally: Tally) => Object.values(tally.latencies).flat().sort((a, b) => a - b);

/** Each kind's requests, p50 and p99. */
export const kindRows = (tally: Tally) =>
  pollKinds.map((kind) => {
    const sorted = [...tally.latencies[kind]].sort((a, b) => a - b);
    return { kind, requests: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
  });

/**
 * A line a minute, so that a long run shows how it goes: `minuteTally()` hands over the minute's
 * partner tally (and starts the next), `extra()` adds the bench's own figures. Returns the stop.
 */
/** The polls of the minute under way, handed over and started afresh once a minute. */
export class MinuteTally {
  private tally = newTally();
  record(result: Parameters<typeof recordPoll>[1]): void {
    recordPoll(this.tally, result);
  }
  take(): Tally {
    const tally = this.tally;
    this.tally = newTally();
    return tally;
  }
}

export function minuteLines(load: SystemLoad, published: () => number, minute: MinuteTally, say: (line: string) => void, extra: () => string = () => ''): () => void {
  let minuteNumber = 0;
  let cpuLast: CpuSample = sampleCpu(load.cpuWatched);
  const reporter = setInterval(() => {
    minuteNumber++;
    const tally = minute.take();
    const cpu = sampleCpu(load.cpuWatched);
    const busy = (cpu.machineBusy - cpuLast.machineBusy) / (cpu.machineAll - cpuLast.machineAll);
    const perProcess = Object.keys(cpu.total)
      .map((name) => `${name} ${fmt((cpu.total[name]! - (cpuLast.total[name] ?? 0)) / 60, 2)}`)
      .join(', ');
    cpuLast = cpu;
    const sorted = sortedAll(tally);
    const more = extra();
    void groupLag(load.kafka, load.group, load.topic)
      .then((lag) => String(lag), () => '?')
      .then((lag) =>
        say(
          `minute ${minuteNumber}: ${tally.requests} requests (${errorCount(tally)} errors), p50 ${fmt(quantile(sorted, 0.5), 1)} ms, p99 ${fmt(quantile(sorted, 0.99), 1)} ms; ` +
            `${fmt(published())} events published, projector lag ${lag}; machine CPU ${fmt(busy * 100)}% (cores: ${perProcess})${more ? `; ${more}` : ''}`,
        ),
      );
  }, 60_000);
  return () => clearInterval(reporter);
}

/** Each watched process's CPU between two samples over `seconds`: seconds, cores, its main thread's cores (an event loop), and its peak RSS. */
export function cpuFigures(start: CpuSample, end: CpuSample, seconds: number, peakRssMiB: Record<string, number> = {}) {
  return Object.keys(end.total).map((name) => {
    const cpuSeconds = end.total[name]! - (start.total[name] ?? 0);
    const main = end.mainThread[name] === undefined ? undefined : end.mainThread[name]! - (start.mainThread[name] ?? 0);
    return { name, cpuSeconds, cores: cpuSeconds / seconds, mainThreadCores: main === undefined ? undefined : main / seconds, peakRssMiB: peakRssMiB[name] ?? 0 };
  });
}

/** The machine's CPU between two samples: busy seconds, the share busy, and the cores counted. */
export function machineFigures(start: CpuSample, end: CpuSample, seconds: number) {
  const busySeconds = end.machineBusy - start.machineBusy;
  const allSeconds = end.machineAll - start.machineAll;
  return { busySeconds, busyFraction: busySeconds / allSeconds, cores: allSeconds / seconds };
}
