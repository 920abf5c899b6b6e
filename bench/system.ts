// npm run bench -- system   (or: npx tsx bench/system.ts [--minutes 10] [--orders 300000]
//                            [--credentials 1000] [--events-per-second 1000] [--partitions 6] [--drain-seconds 120]
//                            [--base <checkout>])
//
// The whole system at a supplier's load (bench/support/system-load.ts, which bench/push.ts runs
// too), for --minutes: `ossn serve` and `ossn projector` as child
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
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { groupLag } from '../test/support/kafka-progress.js';
import { BenchRun } from './support/bench-run.js';
import { sampleCpu } from './support/cpu.js';
import { counterSum, histogramDelta, scrape, type Scrape } from './support/prometheus.js';
import { writeResults } from './support/results.js';
import { cpuFigures, errorsOf, fmt, kindRows as kindRowsOf, LOGIN_DEADLINE_MS, machineFigures, minuteLines, MinuteTally, newTally, recordPoll, sortedAll, startSystemLoad, SYSTEM_DEFAULTS } from './support/system-load.js';
import { quantile } from './support/stats.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    orders: { type: 'string', default: String(SYSTEM_DEFAULTS.orders) },
    credentials: { type: 'string', default: String(SYSTEM_DEFAULTS.credentials) },
    'events-per-second': { type: 'string', default: String(SYSTEM_DEFAULTS.eventsPerSecond) },
    partitions: { type: 'string', default: String(SYSTEM_DEFAULTS.partitions) },
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
const STOP_GRACE_MS = 30_000;
const windowMs = minutes * 60_000;
const database = `ossn_bench_system_${orders}`;
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

const run = new BenchRun(say, STOP_GRACE_MS);
const load = await startSystemLoad(run, { name: 'system', orders, credentials: credentialCount, eventsPerSecond, partitions, database, base: values.base, say });
const { clients, kafka, group, topic, metricsUrl, memory } = load;
const coldStart = await load.firstLogins();

const scrapeAtStart = await scrape(metricsUrl);
const cpuAtStart = sampleCpu(load.cpuWatched);
const windowStart = Date.now();
const windowEnd = windowStart + windowMs;
say(`${minutes} min from ${new Date(windowStart).toISOString()}: ${credentialCount} partners polling, ${fmt(eventsPerSecond)} events/s`);

// ---- the measured window
const whole = newTally();
const thisMinute = new MinuteTally();
const loadRun = load.runLoad({
  start: windowStart,
  end: windowEnd,
  onPoll: (result) => {
    recordPoll(whole, result);
    thisMinute.record(result);
  },
});
const stopMinuteLines = minuteLines(
  load,
  loadRun.published,
  thisMinute,
  say,
);
await loadRun.done;
stopMinuteLines();
const published = loadRun.published();
const refused = loadRun.refused();
const windowSeconds = (Date.now() - windowStart) / 1000;
const cpuAtEnd = sampleCpu(load.cpuWatched);
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
load.close();

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

const processes = cpuFigures(cpuAtStart, cpuAtEnd, windowSeconds, peakRssMiB);
const { busySeconds: machineBusySeconds, busyFraction: machineBusy, cores: machineCores } = machineFigures(cpuAtStart, cpuAtEnd, windowSeconds);
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
const kindRows = kindRowsOf(whole);
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
await run.cleanUp();
