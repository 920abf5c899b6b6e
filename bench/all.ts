// npm run bench: every bench, one after the other (they would share the 2 cores otherwise), then
// the charts and the table for docs/benchmarks.md from their figures in bench/results/.
// Settings: BENCH_SIZES (lookups; the largest is the SOAP bench's order book), BENCH_EVENTS
// (projector, default 1,000,000), and each bench's own (see their headers).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir } from './support/results.js';
import { barChart } from './support/svg-chart.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const sizes = (process.env.BENCH_SIZES ?? '3000,30000,300000').split(',').map(Number);
const largest = Math.max(...sizes);
const events = process.env.BENCH_EVENTS ?? '1000000';

function runBench(script: string, args: string[], env: Record<string, string>, nodeOptions: string[] = []): void {
  console.log(`\n#### node ${nodeOptions.join(' ')} --import tsx bench/${script} ${args.join(' ')} (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')})`);
  const result = spawnSync(process.execPath, [...nodeOptions, '--import', 'tsx', resolve(here, script), ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) throw new Error(`bench/${script} failed (exit code ${result.status ?? result.signal})`);
}

// `npm run bench -- projector` runs that one alone (names: lookups, soap, soap-parser, projector, system, push, replay, publish); the table is
// drawn from every bench's latest figures either way (`npm run bench -- table`: that alone).
const benches = {
  lookups: () => runBench('lookups.ts', [], { BENCH_SIZES: sizes.join(',') }),
  soap: () => runBench('soap.ts', [], { BENCH_ORDERS: String(largest) }),
  // What a SOAP body costs before authentication, before and after the guard (printed only).
  'soap-parser': () => runBench('soap-parser.ts', [], {}),
  // Its raw phases hold the topic's batches and their documents: gigabytes at a million events.
  projector: () => runBench('projector.ts', ['--events', events], {}, ['--max-old-space-size=16384']),
  system: () => runBench('system.ts', [], {}),
  // Push lag at the whole-system load, 100 subscriptions, one `ossn pusher`; partners without and with it.
  push: () => runBench('push.ts', [], {}),
  // `ossn replay` of 2,000,000 events in its own process: its steps and peak memory.
  replay: () => runBench('replay.ts', [], {}),
  // ossn's producer (one send per partition) against one kafkajs send per chunk (printed only).
  publish: () => runBench('publish.ts', [], {}),
};
const chosen = process.argv.slice(2);
for (const name of chosen) if (!(name in benches) && name !== 'table') throw new Error(`no bench named '${name}' (there are ${Object.keys(benches).join(', ')}, and table for the table alone)`);
for (const [name, run] of Object.entries(benches)) if (chosen.length === 0 || chosen.includes(name)) run();

// ---- the table and charts
const read = (name: string) => JSON.parse(readFileSync(resolve(resultsDir, `${name}.json`), 'utf8')) as { machine: Record<string, unknown>; finishedAt: string; figures: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
const lookups = read('lookups');
const soap = read('soap');
const projector = read('projector');
const full = soap.figures.throughput[0];
writeFileSync(
  resolve(resultsDir, 'interfaces.svg'),
  barChart(`getOrderStatusDetails queryType 1 at ${soap.figures.salesOrders.toLocaleString('en-US')} sales orders`, 'req/s', [
    { label: 'SOAP (real app)', value: full.soapRps },
    { label: 'JSON (real app)', value: full.jsonRps },
    { label: 'bare route, same store query', value: full.bareRps },
  ]),
);
const processNames: Record<string, string> = {
  projector: 'ossn projector',
  bench: 'the bench process (raw consume, folding, raw writes)',
  kafka: 'Kafka broker',
  mongodb: 'mongod',
};
const m = lookups.machine;
const big = soap.figures.bigAnswer;
const f = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const summary = [
  `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}, load average ${(m.loadAverage as number[]).join(' ')} as the lookups bench ended. ${lookups.finishedAt.slice(0, 10)}.`,
  '',
  '**Lookup time in the store** (MongoOrderLookups, one call at a time, 300 sales orders a client):',
  '',
  lookups.figures.table,
  '',
  `**Interfaces at ${soap.figures.salesOrders.toLocaleString('en-US')} sales orders** (getOrderStatusDetails queryType 1 over HTTP, concurrency 4, medians of interleaved rounds):`,
  '',
  '| interface | req/s | ÷ bare | target |',
  '| --- | --- | --- | --- |',
  `| SOAP | ${f(full.soapRps)} | ${f(full.soapOverBare, 2)} | ≥ 0.8 |`,
  `| JSON | ${f(full.jsonRps)} | ${f(full.jsonOverBare, 2)} | ≥ 0.9 |`,
  `| bare route, same store query | ${f(full.bareRps)} | 1 | |`,
  '',
  big
    ? `**A ${f(big.purchaseOrders, 0)}-purchase-order answer** (${f(big.salesOrders, 0)} sales orders): lookup ${f(big.lookupMs)} ms; serialization SOAP ${f(big.soapRenderMs)} ms (${f(big.soapBytes / 2 ** 20, 2)} MiB), JSON ${f(big.jsonMs)} ms (${f(big.jsonBytes / 2 ** 20, 2)} MiB); server time over HTTP SOAP ${f(big.soapHttpServerMs)} ms ÷ JSON ${f(big.jsonHttpServerMs)} ms = ${f(big.soapOverJsonServer, 2)} (target ≤ 1.5).`
    : '',
  '',
  ...(soap.figures.largestAnswers?.length
    ? [
        `**The largest answers** (${soap.figures.largestAnswers[0].purchaseOrders.toLocaleString('en-US')} purchase orders of one client, over HTTP through the real app, p50; target ≤ 200 ms each):`,
        '',
        '| answer | SOAP (ms) | JSON (ms) | lookup (ms) | SOAP size (MiB) |',
        '| --- | --- | --- | --- | --- |',
        ...soap.figures.largestAnswers.map((l: { name: string; soapMs: number; jsonMs: number; lookupMs: number; soapBytes: number }) => `| ${l.name} | ${f(l.soapMs)} | ${f(l.jsonMs)} | ${f(l.lookupMs)} | ${f(l.soapBytes / 2 ** 20, 2)} |`),
        '',
      ]
    : []),
  `**Projector** on ${f(projector.figures.events, 0)} events: ${f(projector.figures.projectorEventsPerSecond, 0)} events/s; raw kafkajs consume ${f(projector.figures.consumeEventsPerSecond, 0)}, raw store writes ${f(projector.figures.storeEventsPerSecond, 0)}; ratio ${f(projector.figures.ratio, 2)}; ${f(projector.figures.documentsPerEvent, 3)} document writes an event (target ≤ 0.35), mongod CPU a document projector ÷ raw ${f(projector.figures.mongodMicrosPerDocument.ratio, 2)} (target ≤ 1.2), projector CPU ${f(projector.figures.projectorMicrosPerEvent.total, 0)} µs an event (target ≤ 60).`,
  `Peak resident memory: ${Object.entries(projector.figures.peakRssMiB as Record<string, number>)
    .map(([name, mib]) => `${processNames[name] ?? name} ${f(mib, 0)} MiB`)
    .join(', ')}.`,
  '',
  systemSummary(),
  pushSummary(),
].join('\n');
writeFileSync(resolve(resultsDir, 'summary.md'), summary);
console.log(`\n==== npm run bench: summary (bench/results/summary.md) ====\n${summary}`);

/** The system bench's line, once it has run (bench/system.ts). */
function systemSummary(): string {
  if (!existsSync(resolve(resultsDir, 'system.json'))) return '';
  const { settings: s, partners: p, events: e, freshness: fr, processes, saturation } = read('system').figures;
  const seconds = (value: number, above: boolean) => `${above ? '> ' : ''}${f(value, 2)} s`;
  return [
    `**The whole system** for ${f(s.minutes, 0)} min at ${f(s.orders, 0)} sales orders: ${f(s.credentials, 0)} partners polling queryType 3 once a minute, ${f(s.eventsPerSecond, 0)} events/s:`,
    `partner p50 ${f(p.p50Ms)} ms, p99 ${f(p.p99Ms)} ms (goal ≤ 50); errors ${f(p.errors, 0)} (goal 0); freshness p50 ${seconds(fr.p50Seconds, fr.p50Above)}, p99 ${seconds(fr.p99Seconds, fr.p99Above)} (goal ≤ 1 s);`,
    `events published ${f(e.published, 0)} (${f(e.publishPerSecond, 0)}/s), applied ${f(e.applied, 0)}. CPU cores used: ${(processes as { name: string; cores: number }[]).map((x) => `${x.name} ${f(x.cores, 2)}`).join(', ')}. Saturates first: ${saturation}.`,
    '',
  ].join('\n');
}

/** The push bench's line, once it has run (bench/push.ts). */
function pushSummary(): string {
  if (!existsSync(resolve(resultsDir, 'push.json'))) return '';
  const { settings: s, pushLag, pusher, partners: p } = read('push').figures;
  const lag = pushLag.perNotification;
  const seconds = (value: number) => `${f(value / 1000, 2)} s`;
  return [
    `**Push** of ${f(s.subscriptions, 0)} subscriptions by one \`ossn pusher\` (poll interval ${f(s.pollIntervalMs, 0)} ms) at the whole-system load: push lag (publication to acceptance) p50 ${seconds(lag.p50)}, p95 ${seconds(lag.p95)}, p99 ${seconds(lag.p99)}, max ${seconds(lag.max)} (${f(lag.count, 0)} notifications, ${f(pusher.notificationsPerSecond, 1)}/s);`,
    `the pusher ${f(pusher.cores, 2)} cores; partner p99 without ${f(p.without.p99)} ms, with ${f(p.with.p99)} ms (${f(p.p99Ratio, 2)}).`,
    '',
  ].join('\n');
}
