// npm run soak -- [--minutes 10] [--partners 20] [--port 8080]
//
// The whole `npm start` system for a while, used as it is used: partners polling at their rate
// over SOAP and JSON (some going idle for longer than three rate-limit windows and coming back),
// the ERP publishing events all along. Every minute it prints requests served, errors by kind,
// p50/p99 latency and the RSS of each process. Printed, not asserted.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { eventKey } from '../contracts/transport.js';
import { CredentialStore, credentialsCollection } from '../services/adapters/mongodb/credential-store.js';
import { hashPassword } from '../services/domain/credentials/password-hash.js';
import { connectMongo } from '../services/adapters/mongodb/connect.js';
import { readStackConfig } from './stack/config.js';
import { localServers } from './stack/local-servers.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, partners: { type: 'string', default: '20' }, port: { type: 'string', default: '8080' } },
});
const minutes = Number(values.minutes);
const partnerCount = Number(values.partners);
const port = Number(values.port);
if (!(minutes > 0) || !Number.isInteger(partnerCount) || partnerCount < 1 || !Number.isInteger(port)) {
  process.stderr.write('usage: npm run soak -- [--minutes 10] [--partners 20] [--port 8080]\n');
  process.exit(2);
}

const stack = readStackConfig();
const base = `http://localhost:${port}`;
const say = (line: string) => process.stdout.write(`${line}\n`);

// 1. The system, started as `npm start` starts it (scripts/stack/start.ts); its output goes to a log file.
const system = await localServers();
mkdirSync(stack.logsDir, { recursive: true });
const logFile = resolve(stack.logsDir, 'soak-ossn.log');
const log = openSync(logFile, 'w');
const ossn = spawn(process.execPath, ['bin/ossn.mjs', 'start'], {
  cwd: stack.repoRoot,
  env: { ...system.env, PORT: String(port), LOG_LEVEL: 'warn' },
  stdio: ['ignore', log, log],
});
let ossnExit: string | undefined;
ossn.on('exit', (code, signal) => (ossnExit = `exited (code ${code}, signal ${signal})`));
say(`soak: starting ossn (npm start) on port ${port}; its log: ${logFile}`);
const started = Date.now();
while (!readFileSync(logFile, 'utf8').includes('ossn is running at')) {
  if (ossnExit) throw new Error(`ossn ${ossnExit} before it was ready; see ${logFile}`);
  if (Date.now() - started > 15 * 60_000) throw new Error('ossn was not ready within 15 minutes');
  await sleep(500);
}
const stackEnv = Object.fromEntries(
  readFileSync(stack.envFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('='))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
) as Record<string, string>;
say(`soak: ossn ready after ${Math.round((Date.now() - started) / 1000)} s; running for ${minutes} min with ${partnerCount} partners`);

// 2. Partners: credentials of their own, linked to the demo clients.
const PASSWORD = `soak-${randomUUID()}`;
const mongo = await connectMongo(stackEnv.MONGODB_URI!, 'ossn-soak');
const credentials = new CredentialStore(credentialsCollection(mongo.db(process.env.MONGODB_DATABASE || 'ossn')));
const passwordHash = await hashPassword(PASSWORD);
const partnerIds = Array.from({ length: partnerCount }, (_, n) => `soak-partner-${n}`);
for (const id of partnerIds) await credentials.upsert({ id, passwordHash, scopes: ['order_status', 'osn'], clientIds: ['CLIENT-001', 'CLIENT-002', 'CLIENT-003'] });
await mongo.close();

// 3. The measurements of the current minute.
interface Minute {
  requests: number;
  byKind: Map<string, number>;
  latencies: number[];
}
const fresh = (): Minute => ({ requests: 0, byKind: new Map(), latencies: [] });
let minute = fresh();
const total = { requests: 0, byKind: new Map<string, number>() };
function record(kind: string, ms: number): void {
  for (const bucket of [minute, total]) {
    bucket.requests++;
    bucket.byKind.set(kind, (bucket.byKind.get(kind) ?? 0) + 1);
  }
  minute.latencies.push(ms);
}

const soapStatus = (id: string, since: string) =>
  `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns="http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/"><soapenv:Body><ns:GetOrderStatusDetailsRequest><ns:wsVersion>1.0.0</ns:wsVersion><ns:id>${id}</ns:id><ns:password>${PASSWORD}</ns:password><ns:queryType>3</ns:queryType><ns:statusTimeStamp>${since}</ns:statusTimeStamp></ns:GetOrderStatusDetailsRequest></soapenv:Body></soapenv:Envelope>`;

async function poll(id: string, n: number, since: string): Promise<void> {
  const auth = `Basic ${Buffer.from(`${id}:${PASSWORD}`).toString('base64')}`;
  const request =
    n % 3 === 0
      ? fetch(`${base}/api/promostandards/order-status`, { method: 'POST', body: soapStatus(id, since), headers: { 'content-type': 'text/xml; charset=utf-8' }, signal: AbortSignal.timeout(30_000) })
      : fetch(`${base}/api/partners/v1/orders/${n % 3 === 1 ? 'status' : 'shipments'}?queryType=3&${n % 3 === 1 ? 'statusTimeStamp' : 'shipmentDateTimeStamp'}=${since}`, {
          headers: { authorization: auth },
          signal: AbortSignal.timeout(30_000),
        });
  const t = performance.now();
  try {
    const response = await request;
    await response.arrayBuffer();
    record(String(response.status), performance.now() - t);
  } catch (error) {
    record(`network: ${error instanceof Error ? error.name : 'error'}`, performance.now() - t);
  }
}

const endAt = Date.now() + minutes * 60_000;
let stopping = false;

/** One partner: polls every `everyMs`; the idle ones pause from the second minute for four (well over three 1-minute windows). */
async function partner(id: string, index: number): Promise<void> {
  const everyMs = index % 5 === 0 ? 250 : 3_000; // a fifth poll near the limit (240/min), the rest calmly
  const idle = index % 4 === 1 && minutes >= 7;
  let since = new Date(Date.now() - 3_600_000).toISOString();
  // Each at a phase of its own, as independent partners poll: not all first logins (each a scrypt,
  // bounded per process) in the same 100 ms, which only a soak that starts them together would do.
  await sleep(Math.random() * everyMs);
  for (let n = index; !stopping && Date.now() < endAt; n++) {
    const elapsed = Date.now() - started;
    if (idle && elapsed > 2 * 60_000 && elapsed < 6 * 60_000) {
      await sleep(1_000);
      continue;
    }
    const pollStarted = new Date().toISOString();
    await poll(id, n, since);
    since = pollStarted;
    await sleep(everyMs);
  }
}

// 4. The ERP: status changes and shipments of a few hundred sales orders, ~20 events a second.
const kafka = new Kafka({ clientId: 'ossn-soak', brokers: stackEnv.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
const producer = kafka.producer();
await producer.connect();
let published = 0;
async function erp(): Promise<void> {
  const sequences = new Map<string, number>();
  const locations = new Set<string>();
  const runId = Date.now().toString(36);
  while (!stopping && Date.now() < endAt) {
    const messages = Array.from({ length: 20 }, () => {
      const order = Math.floor(Math.random() * 300);
      const clientId = `CLIENT-00${(order % 3) + 1}`;
      const salesOrderNumber = `SOAK-${runId}-${order}`;
      const key = eventKey(clientId, salesOrderNumber);
      const sequence = (sequences.get(key) ?? 0) + 1;
      sequences.set(key, sequence);
      const envelope = { eventId: randomUUID(), schemaVersion: 1, clientId, salesOrderNumber, sequence, occurredAt: new Date().toISOString() };
      const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' };
      const event =
        sequence % 4 === 2 && !locations.has(key)
          ? (locations.add(key), { ...envelope, type: 'ShipmentLocationRecorded', data: { locationId: 1, shipFrom: address, shipTo: address } })
          : sequence % 4 === 3 && locations.has(key)
            ? { ...envelope, type: 'PackageShipped', data: { locationId: 1, packageId: sequence, trackingNumber: `1Z${sequence}${order}`, shipmentDate: new Date().toISOString() } }
            : { ...envelope, type: 'SalesOrderStatusChanged', data: { purchaseOrderNumber: `SOAK-PO-${Math.floor(order / 2)}`, statusId: [10, 20, 40, 60][sequence % 4]! } };
      return { key: eventKey(clientId, salesOrderNumber), value: JSON.stringify(event) };
    });
    await producer.send({ topic: process.env.OSSN_TOPIC || 'erp.order-events.v1', messages });
    published += messages.length;
    await sleep(1_000);
  }
}

// 5. Every minute: the figures of that minute.
function percentile(sorted: number[], p: number): string {
  if (sorted.length === 0) return '-';
  return `${sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1)} ms`;
}
function rssMiB(pid: number | undefined): string {
  if (!pid || !existsSync(`/proc/${pid}/status`)) return 'gone';
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? `${Math.round(Number(kb) / 1024)} MiB` : '?';
}
const servers = (JSON.parse(readFileSync(stack.stateFile, 'utf8')) as { servers: Record<string, { pid: number }> }).servers;
const kinds = (counts: Map<string, number>) => [...counts].sort().map(([kind, count]) => `${kind}: ${count}`).join(', ');
say('minute | requests | by answer | p50 | p99 | events published | RSS ossn (projector + query) | kafka | mongodb | redis');
let minuteNumber = 0;
const reporter = setInterval(() => {
  minuteNumber++;
  const sorted = minute.latencies.sort((a, b) => a - b);
  say(
    `${minuteNumber} | ${minute.requests} | ${kinds(minute.byKind)} | ${percentile(sorted, 50)} | ${percentile(sorted, 99)} | ${published} | ` +
      `${rssMiB(ossn.pid)} | ${rssMiB(servers.kafka?.pid)} | ${rssMiB(servers.mongodb?.pid)} | ${rssMiB(servers.redis?.pid)}` +
      (ossnExit ? ` | ossn ${ossnExit}` : ''),
  );
  minute = fresh();
}, 60_000);

await Promise.all([erp(), ...partnerIds.map((id, index) => partner(id, index))]);
clearInterval(reporter);
stopping = true;
await producer.disconnect();

const crashed = ossnExit !== undefined;
ossn.kill('SIGINT');
await Promise.race([new Promise((done) => ossn.once('exit', done)), sleep(60_000)]);
await system.release();
const logLines = readFileSync(logFile, 'utf8').split('\n');
const warnings = logLines.filter((line) => /"level":(40|50|60)/.test(line));
const serverErrors = [...total.byKind].filter(([kind]) => kind.startsWith('5') || kind.startsWith('network')).reduce((sum, [, n]) => sum + n, 0);
say(`soak: ${total.requests} requests (${kinds(total.byKind)}), ${published} events published`);
say(`soak: crashes ${crashed ? 1 : 0}; 5xx and network errors ${serverErrors}; warning or error log lines ${warnings.length}`);
for (const line of warnings.slice(0, 10)) say(`  ${line}`);
