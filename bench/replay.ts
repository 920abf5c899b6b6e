// npm run bench:replay [-- --events N] [--empty-live]   (2,000,000 events by default)
// `ossn replay`, the real command in its own process, over a topic of N events (the demo data
// set, 6 partitions) into a fresh database whose live version `ossn projector` has first filled
// with every event (as in production: a replay rebuilds beside a populated live version, whose
// shown times it reads and carries; --empty-live skips that, as the bench did before issue 31):
// how long each of its steps took (from its output) and its events a second, the CPU seconds the
// replay process and mongod spent in each (less sensitive than the times to a neighbour's load), the load average,
// and the peak resident memory of the replay process, beside Kafka's and MongoDB's. The replay
// folds the whole topic once more to verify it, so its memory is the figure that must stay flat as
// the topic grows (verification streams the topic in passes of 500,000 events).
// --base <checkout> runs another checkout's `ossn` (the version a change started from, its
// dependencies installed) for both the live version and the replay; its figures go to
// bench/results/replay-base.json, so a run of each side by side compares them.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { generateDemoEvents } from '../services/ossn/demo-events/demo-events.js';
import { ensureStack, stackStatus } from '../scripts/stack/stack.js';
import { createKafka } from '../services/adapters/kafka/client.js';
import { connectProducer } from '../services/adapters/kafka/producer.js';
import { ensureTopics } from '../services/adapters/kafka/topics.js';
import { waitUntilCaughtUp } from '../services/adapters/kafka/progress.js';
import { createLogger } from '../services/plumbing/logging/logger.js';
import { MemoryWatch } from './support/process-memory.js';
import { sampleCpu, type WatchedCpu } from './support/cpu.js';
import { ossnEntry } from './support/ossn-entry.js';
import { resultsDir, writeResults } from './support/results.js';

const { values } = parseArgs({ options: { events: { type: 'string' }, partitions: { type: 'string' }, 'empty-live': { type: 'boolean' }, base: { type: 'string' } } });
const eventCount = Number(values.events ?? process.env.BENCH_REPLAY_EVENTS ?? 2_000_000);
const partitions = Number(values.partitions ?? 6);
for (const n of [eventCount, partitions]) if (!Number.isInteger(n) || n < 1) throw new Error(`--events and --partitions take whole numbers of at least 1, got ${n}`);
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

const env = process.env.KAFKA_BROKERS && process.env.MONGODB_URI ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS, MONGODB_URI: process.env.MONGODB_URI } : await ensureStack();
const memory = new MemoryWatch(250);
for (const server of await stackStatus()) {
  if (server.pid !== undefined && server.name !== 'redis') memory.watch({ name: server.name, pid: server.pid, group: true });
}
const logger = createLogger('bench', 'warn');
const kafka = createKafka(env.KAFKA_BROKERS.split(','), 'bench-replay', logger);
const run = randomBytes(3).toString('hex');
const topic = `bench.replay.${run}`;
const database = `bench_replay_${run}`;

// Generated and published a share at a time: the bench's own memory is not the figure.
say(`loading ${eventCount} events into ${topic} (${partitions} partitions)`);
await ensureTopics(kafka, topic, partitions);
const producer = await connectProducer(kafka);
const perShare = 200_000;
let loaded = 0;
for (let share = 0; loaded < eventCount; share++) {
  // About 9 events per sales order; each share its own clients, so no sales order spans two.
  const events = generateDemoEvents({ clients: 10, orders: Math.ceil(perShare / 9 / 10) + 1, seed: 1_000 + share }).slice(0, eventCount - loaded);
  for (const e of events) e.clientId = `${e.clientId}-${share}`;
  for (let i = 0; i < events.length; i += 5_000) {
    await producer.send(topic, events.slice(i, i + 5_000).map((e) => ({ key: `${e.clientId}:${e.salesOrderNumber}`, value: JSON.stringify(e) })));
  }
  loaded += events.length;
  say(`  ${loaded} loaded`);
}
await producer.close();

const entry = ossnEntry(values.base);
const ossnEnv = { ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS, MONGODB_URI: env.MONGODB_URI, MONGODB_DATABASE: database, OSSN_TOPIC: topic, LOG_LEVEL: 'warn' };
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

/** The live version (1) filled by `ossn projector` over every event, as a replay finds it in production. */
async function populateLiveVersion(): Promise<number> {
  const group = `ossn-projector-${topic}-v1`;
  const child = spawn(process.execPath, [entry, 'projector'], { env: { ...ossnEnv, OSSN_METRICS_PORT: '0', OSSN_CONSUMER_GROUP: group }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  const started = performance.now();
  let polls = 0;
  try {
    await Promise.race([
      waitUntilCaughtUp(kafka, group, topic, 4 * 3_600_000, {
        everyMs: 250,
        onLag: (left) => {
          if (++polls % 240 === 0) say(`  live projector: ${loaded - Number(left)} of ${loaded} events committed`);
        },
      }),
      exited.then((code) => {
        throw new Error(`ossn projector exited (code ${code}) before it caught up`);
      }),
    ]);
    return (performance.now() - started) / 1000;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

let liveSeconds: number | undefined;
if (!values['empty-live']) {
  say(`filling the live version: ossn projector over the ${loaded} events (load ${load()})`);
  liveSeconds = await populateLiveVersion();
  say(`  live version filled in ${Math.round(liveSeconds)} s`);
}

/** Runs `ossn replay` to the end, timing each step from the line that announces it. */
async function timeReplay(): Promise<{ seconds: number; steps: Record<string, number>; cpu: Record<string, { replay: number; mongod: number }>; output: string }> {
  const child = spawn(process.execPath, [entry, 'replay'], { env: ossnEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  memory.watch({ name: 'replay', pid: child.pid as number });
  const mongods: WatchedCpu[] = (await stackStatus()).filter((server) => server.name.startsWith('mongo') && server.pid !== undefined).map((server) => ({ name: server.name, pid: server.pid as number }));
  const watchedCpu = [{ name: 'replay', pid: child.pid as number }, ...mongods];
  /** CPU seconds so far: the replay process's (all threads) and every mongod's. */
  const cpuNow = () => {
    const { total } = sampleCpu(watchedCpu);
    return { replay: total.replay ?? 0, mongod: mongods.reduce((sum, m) => sum + (total[m.name] ?? 0), 0) };
  };
  const cpuMarks: { replay: number; mongod: number }[] = [];
  let lastCpu = cpuNow();
  const cpuTimer = setInterval(() => (lastCpu = cpuNow()), 200);
  const log = createWriteStream(resolve(resultsDir, 'replay-process.log'));
  const started = performance.now();
  const marks: [string, number][] = [];
  const steps: [string, RegExp][] = [
    ['rebuilding', /^rebuilding read-model version/],
    ['verifying', /caught up after/],
    ['switching', /^switching to version/],
    ['settling', /^settling change and visible times/],
  ];
  let output = '';
  const watch = (line: string) => {
    log.write(`${line}\n`);
    output += `${line}\n`;
    const step = steps.find(([, pattern]) => pattern.test(line));
    if (step) {
      marks.push([step[0], performance.now()]);
      cpuMarks.push(cpuNow());
      say(`  ${line}`);
    } else if (/^rebuilding: /.test(line)) say(`  ${line}`);
  };
  createInterface({ input: child.stdout }).on('line', watch);
  createInterface({ input: child.stderr }).on('line', watch);
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  const ended = performance.now();
  // The process is gone: its last figure is the last sample taken while it ran (at most 200 ms short).
  clearInterval(cpuTimer);
  const cpuEnd = { replay: lastCpu.replay, mongod: cpuNow().mongod };
  memory.forget('replay');
  log.end();
  if (code !== 0) throw new Error(`ossn replay exited with code ${code}; see bench/results/replay-process.log`);
  const durations = Object.fromEntries(marks.map(([name, at], i) => [name, ((marks[i + 1]?.[1] ?? ended) - at) / 1000]));
  const cpu = Object.fromEntries(
    marks.map(([name], i) => {
      const [from, to] = [cpuMarks[i]!, cpuMarks[i + 1] ?? cpuEnd];
      return [name, { replay: to.replay - from.replay, mongod: to.mongod - from.mongod }];
    }),
  );
  return { seconds: (ended - started) / 1000, steps: durations, cpu, output };
}

const loadBefore = load();
say(`ossn replay (load ${loadBefore})`);
const replayed = await timeReplay();
const peakRssMiB = memory.peaksMiB();
memory.stop();

const round = (n: number) => Math.round(n * 10) / 10;
const figures = {
  events: loaded,
  partitions,
  liveVersion: values['empty-live'] ? 'empty' : 'populated',
  liveFillSeconds: liveSeconds === undefined ? undefined : round(liveSeconds),
  loadAverage: { before: loadBefore, after: load() },
  seconds: round(replayed.seconds),
  eventsPerSecond: Math.round(loaded / replayed.seconds),
  steps: Object.fromEntries(Object.entries(replayed.steps).map(([k, v]) => [k, round(v)])),
  cpuSeconds: Object.fromEntries(Object.entries(replayed.cpu).map(([k, v]) => [k, { replay: round(v.replay), mongod: round(v.mongod) }])),
  peakRssMiB: Object.fromEntries(Object.entries(peakRssMiB).map(([k, v]) => [k, Math.round(v)])),
  verification: /documents: .*/.exec(replayed.output)?.[0],
};
const resultsFile = writeResults(values.base === undefined ? 'replay' : 'replay-base', { ...figures, checkout: values.base ?? 'this one' });
process.stdout.write(
  [
    `ossn replay${values.base === undefined ? '' : ` of the --base checkout ${values.base}`} of ${loaded.toLocaleString('en')} events, live version ${figures.liveVersion}: ${round(replayed.seconds)} s (${figures.eventsPerSecond.toLocaleString('en')} events/s over the whole replay); load average ${loadBefore} before, ${figures.loadAverage.after} after`,
    `  steps: ${Object.entries(figures.steps).map(([k, v]) => `${k} ${v} s (${Math.round(loaded / v).toLocaleString('en')} events/s)`).join(', ')}`,
    `  CPU seconds (replay process + mongod): ${Object.entries(figures.cpuSeconds).map(([k, v]) => `${k} ${v.replay} + ${v.mongod}`).join(', ')}`,
    `  peak resident memory (MiB): ${Object.entries(figures.peakRssMiB).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  ${figures.verification ?? ''}`,
    `figures in ${resultsFile}`,
    '',
  ].join('\n'),
);
process.exit(0);
