// The failover suite: ossn deployed on the local cluster as an operator deploys it (`ossn setup`,
// `ossn credentials`, two `ossn projector` in one group, two `ossn serve` behind one address),
// under load in every case (an ERP stream through `ossn publish`, partners polling queryType 3
// through SOAP and JSON with the time of their previous poll, partners looking orders up), while
// one part of the cluster fails after another. After each case, once every acknowledged event is
// projected: nothing lost (the read models equal the reference fold of every acknowledged event),
// the polling promise held (every poller's accumulated view equals the final state, none was handed
// an older state after a newer), and partner requests failed only within a bounded window around
// the fault. Where a fault should meet work in progress (a), (c), (d), the ERP sends a large batch
// right before it, so that the projectors are behind and writing when the primary dies and produce
// requests are in flight when the leading broker dies. (e) stands in for ops/proxy/nginx.conf with
// the suite's own round-robin proxy (support/round-robin-proxy.ts), which follows the same rule: a
// connection the killed service refuses goes to the other one.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterMemberForKafkaNode, clusterMemberForMongoHost, clusterMemory, killClusterMember, restartClusterMember, type ClusterMemberName } from '../../scripts/stack/cluster.js';
import { sendDeadlineMs } from '../../services/adapters/kafka/producer.js';
import { Random } from '../../services/ossn/demo-events/random.js';
import { testSeed } from '../support/seed.js';
import { uniqueNames } from '../support/servers.js';
import { useClusterClients } from './support/cluster-clients.js';
import { clusterServers } from './support/cluster-servers.js';
import { ErpStream, publishTimeoutMs, type BatchRecord } from './support/erp-stream.js';
import { expectedView, heldView, unprojectedCount, untilApplied, untilProjected } from './support/final-state.js';
import { mismatchReport } from './support/mismatch-report.js';
import { OssnSystem } from './support/ossn-system.js';
import { outageWindow, type OutageWindow } from './support/outage-window.js';
import { admittedWindows, mostAdmittedWithin, OverLimitLoad, type AdmittedRun } from './support/over-limit-load.js';
import { PartnerTraffic, type Partner } from './support/partners.js';

const cluster = clusterServers();
const seed = testSeed('FAILOVER_SEED');
const random = new Random(seed);
// Dropped after the file with what else holds its suffix (test/support/leftovers-setup.ts).
const { database, topic, group, suffix: run } = uniqueNames('failover');

/** RATE_LIMIT_PER_MINUTE's default, per a window shortened to 10 s so that the limit case sees several. */
const rateLimit = { perWindow: 300, windowMs: 10_000 };
/** The query services' STORE_TIMEOUT_MS (its default, given them): a request in flight when a fault strikes ends within it. */
const storeTimeoutMs = 5_000;
/** OSSN_CONSUMER_SESSION_TIMEOUT_MS: long enough for a projector held by a MongoDB election (10-12 s) to stay in the group. */
const consumerSessionTimeoutMs = 15_000;
/** A batch in progress is acknowledged within an `ossn publish` (killed after publishTimeoutMs) and one more. */
const streamStopMs = 2 * publishTimeoutMs;
/** A backlog an ERP exports at once: at the projectors' pace on this machine, several seconds of work. */
const burstEvents = 4_000;

const password = () => randomBytes(12).toString('hex');
const partners: Partner[] = [
  { id: `failover-a-${run}`, password: password(), clientIds: ['A1', 'A2'] },
  { id: `failover-b-${run}`, password: password(), clientIds: ['B1'] },
  { id: `failover-c-${run}`, password: password(), clientIds: ['C1'] },
];
/** The credential sent above its limit through both query services in the Redis case. */
const busy: Partner = { id: `failover-busy-${run}`, password: password(), clientIds: ['R1'] };

const system = new OssnSystem({
  kafkaBrokers: cluster.kafkaBrokers,
  mongodbUri: cluster.mongodbUri,
  redisUrl: cluster.redisUrl,
  database,
  topic,
  group,
  storeTimeoutMs,
  rateLimit,
  consumerSessionTimeoutMs,
});
const stream = new ErpStream({
  clientIds: partners.flatMap((p) => p.clientIds),
  salesOrdersPerClient: 10,
  env: system.env,
  random,
  everyMs: 1_500,
  batchSize: [10, 20],
});
let traffic: PartnerTraffic;
/** Killed members are restarted after the file whatever happened (and after each case, below). */
const clients = useClusterClients('failover-suite');
const db = () => clients.mongo.db(database);

beforeAll(async () => {
  await system.setUp([...partners, busy]);
  await system.start();
  await stream.sendInitial();
  traffic = new PartnerTraffic({ url: system.url, partners, random, everyMs: 1_000 });
  traffic.start();
  const { stored, expected } = await untilProjected(db(), stream.acknowledged, 90_000);
  expect(stored).toEqual(expected);
});

afterAll(async () => {
  let processes: { name: string; rssBytes: number }[] = [];
  try {
    await traffic?.stop();
    await stream.stop(streamStopMs);
  } finally {
    try {
      processes = system.memory();
    } finally {
      await system.close();
    }
  }
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
  const members = await clusterMemory();
  const total = [...members, ...processes].reduce((sum, m) => sum + m.rssBytes, 0);
  console.log(
    `memory (RSS) at the end: ${[...members, ...processes].map((m) => `${m.name} ${mib(m.rssBytes)}`).join(', ')}; ${mib(total)} in all`,
  );
});

/** `promise`, or a rejection naming `what` after `timeoutMs`. */
async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const timeout = new AbortController();
  try {
    return await Promise.race([promise, sleep(timeoutMs, undefined, { signal: timeout.signal }).then(() => Promise.reject(new Error(`${what}: not within ${timeoutMs} ms`)))]);
  } finally {
    timeout.abort();
  }
}

/** The large batch, sent and acknowledged: resolves with its record. */
async function sendBurst(events: number): Promise<BatchRecord> {
  const burst = await within(stream.burst(events), streamStopMs, 'the burst\'s first send');
  return within(burst.acknowledged, streamStopMs, `${events} events acknowledged`);
}

/**
 * The large batch, sent while the projectors are held (SIGSTOP) and let go once it is acknowledged:
 * on an idle machine they keep pace with one ossn publish, so a fault meant to meet them behind a
 * backlog ((a), (d)) would find none.
 */
async function sendBurstWhileProjectorsHeld(): Promise<BatchRecord> {
  const held = system.projectors.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const projector of held) projector.child.kill('SIGSTOP');
  try {
    return await sendBurst(burstEvents);
  } finally {
    for (const projector of held) projector.child.kill('SIGCONT');
  }
}

/** How partner requests may fail in a case: not at all, or only within this window around the fault. */
type OutageBound = 'none' | { beforeMs: number; afterMs: number };

/**
 * One case: the ERP stream flows, the fault strikes (`fault` resolves with the time it struck, once
 * the cluster is whole again), the stream flows on a while and stops; then every check. Whatever
 * happens, the stream is stopped and what the fault killed is started again before the next case.
 */
async function failoverCase(name: string, bound: OutageBound, fault: () => Promise<number>): Promise<OutageWindow> {
  const requestsBefore = traffic.requests.length;
  const batchesBefore = stream.batches.length;
  stream.start();
  let faultAt: number;
  try {
    await sleep(5_000);
    faultAt = await fault();
    await sleep(5_000);
  } finally {
    try {
      await stream.stop(streamStopMs);
    } finally {
      for (const member of [...clients.killed]) await restart(member);
      await system.repair();
    }
  }

  // Nothing lost, nothing applied twice.
  const { stored, expected } = await untilProjected(db(), stream.acknowledged, 90_000);
  if (!isDeepStrictEqual(stored, expected)) {
    const report = await mismatchReport({ kafka: clients.kafka, topic, db: db(), stored, expected, acknowledged: stream.acknowledged, batches: stream.batches });
    console.log(`${name}: the read models differ from the reference fold\n${report.join('\n')}\nprojectors' output:\n${system.projectors.map((p) => p.output().slice(-20_000)).join('\n---\n')}`);
  }
  expect(stored, `${name}: read models against the reference fold`).toEqual(expected);
  // The promise: two polls after the last event was projected, each poller holds the final state, and was never handed an older one.
  await traffic.pollsSince(Date.now(), 2, 30_000);
  expect(traffic.wrongAnswers, `${name}: wrong answers to partners`).toEqual([]);
  for (const view of traffic.views) {
    expect(view.older, `${name}: ${view.name} handed an older state`).toEqual([]);
    const wanted = expectedView(stream.acknowledged, view.partner);
    const held = heldView(view);
    if (view.kind === 'status') expect(held.statuses, `${name}: ${view.name}`).toEqual(wanted.statuses);
    else expect(held.shipments, `${name}: ${view.name}`).toEqual(wanted.shipments);
  }

  const window = outageWindow(traffic.requests.slice(requestsBefore), faultAt);
  const batches = stream.batches.slice(batchesBefore);
  const events = batches.reduce((sum, b) => sum + b.events, 0);
  const failures = batches.flatMap((b) => b.failures);
  const hung = failures.filter((f) => f.startsWith('hung')).length;
  const where = window.failed > 0 ? ` from ${(window.from! / 1000).toFixed(1)} s to ${(window.to! / 1000).toFixed(1)} s after the fault` : '';
  const line =
    `${name}: longest window ${(window.lengthMs / 1000).toFixed(1)} s${where} (one requester's longest ${(window.longestPerRequesterMs / 1000).toFixed(1)} s); ` +
    `requests ${window.ok} ok / ${window.failed} failed; events acknowledged ${events} in ${batches.length} batches (${failures.length} sends failed and were sent again${hung > 0 ? `, ${hung} of them hung` : ''}); pollers ${traffic.pollers}`;
  console.log(failures.length > 0 ? `${line}\n  ERP sends that failed: ${[...new Set(failures)].join(' | ')}` : line);
  if (bound === 'none') expect(window.failed, `${name}: failed partner requests: ${window.examples.join('; ')}`).toBe(0);
  else if (window.failed > 0) {
    expect(window.from!, `${name}: first failure, ms after the fault: ${window.examples.join('; ')}`).toBeGreaterThanOrEqual(-bound.beforeMs);
    expect(window.to!, `${name}: last failure, ms after the fault`).toBeLessThanOrEqual(bound.afterMs);
  }
  return window;
}

/** The replica set's primary as a member sees it ('127.0.0.1:20011'), once there is one other than `not`. */
async function primary(not?: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hello = await clients.mongo
      .db('admin')
      .command({ hello: 1 }, { readPreference: 'nearest' })
      .catch(() => undefined);
    const found = hello?.['primary'] as string | undefined;
    if (found && found !== not) return found;
    if (Date.now() > deadline) throw new Error(`no primary${not ? ` other than ${not}` : ''} within ${timeoutMs} ms`);
    await sleep(250);
  }
}

async function kill(member: ClusterMemberName): Promise<number> {
  clients.killed.add(member);
  const at = Date.now();
  await killClusterMember(member);
  return at;
}

async function restart(member: ClusterMemberName): Promise<void> {
  await restartClusterMember(member);
  clients.killed.delete(member);
}

/** Events on the event topic, as its partitions' end offsets tell. */
async function topicEnd(): Promise<number> {
  return (await clients.admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
}

describe('failover under load, on the cluster', () => {
  // An election after a primary dies: the secondaries call it after electionTimeoutMillis (10 s,
  // randomised by up to 15 %) without a heartbeat, and it takes about a second; the services'
  // driver finds the new primary within its 0.5 s rescan while a read waits for one. A read waits
  // at most STORE_TIMEOUT_MS (storeTimeoutMs) for a primary, so failures start no earlier than
  // that before the fault (in flight) and end when the new primary is found: ~13 s after the kill,
  // given here 7 s more for a machine whose two cores also run three mongod, three brokers and the load.
  it('(a) the MongoDB primary SIGKILLed while the projectors write a backlog, then restarted', async () => {
    let lag = 0;
    await failoverCase('(a) MongoDB primary SIGKILL', { beforeMs: storeTimeoutMs, afterMs: 20_000 }, async () => {
      const old = await primary();
      const member = clusterMemberForMongoHost(old);
      await sendBurstWhileProjectorsHeld();
      // Acknowledged and not yet projected: what the projectors are writing when the primary dies.
      lag = await unprojectedCount(db(), stream.acknowledged);
      const at = await kill(member);
      await primary(old);
      await sleep(5_000);
      await restart(member);
      return at;
    });
    console.log(`(a) acknowledged events not yet projected at the kill: ${lag}`);
    expect(lag, '(a): the projectors were behind (writing) when the primary died').toBeGreaterThan(0);
  });

  // A stepdown hands over at once: the primary steps down and the most up-to-date secondary is
  // asked to stand, so a primary is back within ~2 s; reads that met "not primary" are retried
  // once a primary is found. Failures: at most a store deadline before, and 2 s + 5 s + 3 s of
  // slack after.
  it('(b) a primary stepdown', async () => {
    await failoverCase('(b) MongoDB primary stepdown', { beforeMs: storeTimeoutMs, afterMs: 10_000 }, async () => {
      const old = await primary();
      const at = Date.now();
      // The stepping-down primary may close the connection the command came on: the new primary is the answer.
      await clients.mongo
        .db('admin')
        .command({ replSetStepDown: 60, secondaryCatchUpPeriodSecs: 10 })
        .catch(() => undefined);
      await primary(old);
      return at;
    });
  });

  // Partners' requests read MongoDB only: a broker's death moves partition leaders (after the
  // controller misses the broker for broker.session.timeout.ms, 9 s) under the ERP's publishes and
  // the projectors, and no partner request may fail. The kill strikes amid a large batch: once its
  // first events are on the topic, the rest are in flight. A send given up at the producer's
  // deadline (sendDeadlineMs, 35 s) is sent again by the ERP: a batch is acknowledged within that
  // and one more send (10 s: start, connect, send).
  it('(c) the broker leading the most partitions of the event topic SIGKILLed amid a large batch, then restarted', async () => {
    const batchesBefore = stream.batches.length;
    let killAt = 0;
    let burst: BatchRecord | undefined;
    await failoverCase('(c) Kafka partition leader SIGKILL', 'none', async () => {
      const [metadata] = (await clients.admin.fetchTopicMetadata({ topics: [topic] })).topics;
      const led = new Map<number, number>();
      for (const p of metadata?.partitions ?? []) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
      const [leader] = [...led].sort((a, b) => b[1] - a[1])[0] ?? [1];
      const member = clusterMemberForKafkaNode(leader);
      const before = await topicEnd();
      const started = await within(stream.burst(burstEvents), streamStopMs, "the burst's first send");
      // A steady batch (at most 20 events) may end before the burst begins: past that, the burst is being sent.
      const deadline = Date.now() + publishTimeoutMs;
      while ((await topicEnd()) < before + 20 + 100) {
        if (Date.now() > deadline) throw new Error(`(c): the burst's first events not on the topic within ${publishTimeoutMs} ms`);
        await sleep(50);
      }
      killAt = await kill(member);
      await sleep(15_000);
      await restart(member);
      burst = await within(started.acknowledged, streamStopMs, '(c): the burst acknowledged');
      return killAt;
    });
    const batches = stream.batches.slice(batchesBefore);
    const longest = Math.max(...batches.map((b) => b.acknowledgedAt - b.firstSentAt));
    console.log(`(c) longest from a batch's first send to its acknowledgement: ${(longest / 1000).toFixed(1)} s; the burst: sent ${burst!.firstSentAt - killAt} ms after the kill, acknowledged ${burst!.acknowledgedAt - killAt} ms after it, ${burst!.failedSends} sends failed`);
    expect(burst!.firstSentAt, '(c): the burst was sent before the kill').toBeLessThan(killAt);
    expect(burst!.acknowledgedAt, '(c): the burst was acknowledged after the kill').toBeGreaterThan(killAt);
    expect(longest, '(c): longest first send to acknowledgement, ms').toBeLessThanOrEqual(sendDeadlineMs + 10_000);
    // Every failed `ossn publish` ended by itself (services/adapters/kafka/producer.ts: a send has a
    // deadline, a failed opening leaves no connection open); the ERP's kill is a safety net only.
    const hung = batches.flatMap((b) => b.failures.filter((f) => f.startsWith('hung')));
    expect(hung, '(c): ossn publish processes that hung').toEqual([]);
  });

  // The projectors are not on the partners' path: none of their requests may fail. The killed one
  // is behind on a backlog; the group hands its partitions on after OSSN_CONSUMER_SESSION_TIMEOUT_MS
  // (15 s here) and the other projects what it left: every event acknowledged before the kill is
  // projected within that and 15 s for the hand-over and the backlog.
  it('(d) one of two projectors SIGKILLed behind a backlog (a new one started after)', async () => {
    let lag = 0;
    let caughtUpMs = 0;
    await failoverCase('(d) projector SIGKILL', 'none', async () => {
      await sendBurstWhileProjectorsHeld();
      const beforeKill = [...stream.acknowledged];
      lag = await unprojectedCount(db(), beforeKill);
      const at = Date.now();
      await system.killProjector(random.int(0, system.projectors.length - 1));
      const caughtUp = untilApplied(db(), beforeKill, consumerSessionTimeoutMs + 45_000);
      caughtUp.catch(() => undefined); // awaited below
      await sleep(consumerSessionTimeoutMs);
      system.startProjector();
      caughtUpMs = (await caughtUp) - at;
      return at;
    });
    console.log(`(d) acknowledged events not yet projected at the kill: ${lag}; all projected ${(caughtUpMs / 1000).toFixed(1)} s after it`);
    expect(lag, '(d): the projectors were behind when one of them was killed').toBeGreaterThan(0);
    expect(caughtUpMs, '(d): from the kill until every event acknowledged before it is projected, ms').toBeLessThanOrEqual(consumerSessionTimeoutMs + 15_000);
  });

  // The proxy passes a refused connection to the other service: only the requests in flight at
  // the killed service fail. They were sent at most a store deadline before the kill, and end with
  // it (the connection breaks); 2 s of slack.
  it('(e) one of two query services SIGKILLed, then started again', async () => {
    await failoverCase('(e) query service SIGKILL', { beforeMs: storeTimeoutMs, afterMs: 2_000 }, async () => {
      const index = random.int(0, 1);
      const at = Date.now();
      await system.killService(index);
      await sleep(10_000);
      await system.restartService(index);
      return at;
    });
  });

  // Redis away: every request is served (each instance counts on its own until Redis answers), and
  // the limit holds as docs/operations.md, Limits, promises: one window admits at most the limit while Redis counts,
  // and each instance's own window at most the limit while it counts alone; around the switches
  // (Redis lost, Redis back) one credential may get up to (N + 2) x the limit within one window
  // length with N instances: N + 1 around the loss or the return (each instance opens a fresh
  // local window on top of what the shared one admitted; Redis back empty opens a fresh shared
  // window on top of the local ones), one more when Redis returns before the shared window open at
  // the loss had ended. So at most 4 x the limit in any window-length stretch of all answers here.
  it('(f) Redis restarted while one credential is sent above its limit through both query services', async () => {
    // 160 requests/s offered in all, 80 per instance, not waiting for answers (at most 64
    // unanswered): above the limit (30/s) for each instance alone while answers take under 1 s.
    const load = new OverLimitLoad(system.url, busy, 16, 100);
    let redisKilledAt = 0;
    load.start();
    try {
      await failoverCase('(f) Redis restart, rate limit across two services', 'none', async () => {
        await sleep(2.5 * rateLimit.windowMs);
        redisKilledAt = await kill('redis');
        await sleep(1.2 * rateLimit.windowMs);
        await restart('redis');
        await sleep(2.5 * rateLimit.windowMs);
        return redisKilledAt;
      });
    } finally {
      await load.stop();
    }

    const { perWindow, windowMs } = rateLimit;
    /** Answers cross a window's ends by this much at most (their own time on the way). */
    const slackMs = 1_000;
    // When each instance counted alone: from its line saying so to the line saying counts are shared again.
    const alone = system.services.map((service, instance) => {
      const lines = service.storeLines.filter((line) => line.time >= redisKilledAt);
      const from = lines.find((line) => line.msg.startsWith('rate-limit store unreachable'))?.time;
      const to = lines.find((line) => line.msg.startsWith('rate-limit store answers again'))?.time;
      expect({ instance, from, to }, 'each instance counted alone while Redis was away, and shared again after').toEqual({ instance, from: expect.any(Number), to: expect.any(Number) });
      return { instance, from: from!, to: to! };
    });
    const firstAlone = Math.min(...alone.map((a) => a.from));
    const sharedAgain = Math.max(...alone.map((a) => a.to));
    const aloneAnswers = alone.map(({ instance, from, to }) => load.answers.filter((a) => a.instance === instance && a.startedAt > from && a.endedAt < to));
    const before = admittedWindows(load.answers.filter((a) => a.endedAt < firstAlone), slackMs);
    // From a second after the last instance said it shares again: a request that arrived as it
    // switched may still have been counted on its own (the switch is within the (N + 2) x bound below).
    const after = admittedWindows(load.answers.filter((a) => a.startedAt > sharedAgain + slackMs), slackMs);
    const meanwhile = aloneAnswers.map((answers) => admittedWindows(answers, slackMs));
    const most = mostAdmittedWithin(load.answers, windowMs);
    const counts = (runs: AdmittedRun[]) => runs.map((r) => `${r.admitted} at ${((r.from - redisKilledAt) / 1000).toFixed(1)} s`).join(', ');
    console.log(
      `(f) rate limit ${perWindow} per ${windowMs / 1000} s, admitted per window (when its first answer ended, from Redis's kill): ${counts(before)} | alone, instance 0: ${counts(meanwhile[0]!)} (${aloneAnswers[0]!.filter((a) => a.status === 429).length} refused); ` +
        `instance 1: ${counts(meanwhile[1]!)} (${aloneAnswers[1]!.filter((a) => a.status === 429).length} refused) | ${counts(after)}; ` +
        `most in any ${windowMs / 1000} s: ${most.admitted} (from ${((most.from - redisKilledAt) / 1000).toFixed(1)} s after the kill); answers ${load.answers.length} (${load.answers.filter((a) => a.status === 429).length} refused)`,
    );
    // Windows were seen before and after; each instance alone was above the limit (refused some) and admitted some.
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const [instance, answers] of aloneAnswers.entries()) {
      expect(answers.filter((a) => a.status === 429).length, `instance ${instance} refused while counting alone`).toBeGreaterThan(0);
      expect(answers.filter((a) => a.status === 200).length, `instance ${instance} admitted while counting alone`).toBeGreaterThan(0);
    }
    // The limit per window, and the window's length: a new window opens no sooner than one window
    // length after the last. The first window after Redis is back opened when the first instance
    // shared again, before `after` begins (both did): its start is not seen, so gaps count from the next.
    for (const [windows, firstSeen] of [[before, 0], [after, 1], ...meanwhile.map((m) => [m, 0] as const)] as const) {
      for (const w of windows) expect(w.admitted).toBeLessThanOrEqual(perWindow);
      for (let i = firstSeen + 1; i < windows.length; i++) expect(windows[i]!.from - windows[i - 1]!.from, 'ms between windows opening').toBeGreaterThanOrEqual(windowMs - slackMs);
    }
    // Around the switches too (all answers, none left out): (N + 2) x the limit with N = 2.
    expect(most.admitted, `admitted in ${windowMs} ms`).toBeLessThanOrEqual(4 * perWindow);
    expect(load.answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
  });
});
