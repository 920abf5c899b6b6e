// `ossn publish` while the broker leading its topic's partition is SIGKILLed: every publish ends by
// itself (acknowledged, or failed within the producer's deadline: it never hangs, as it did when a
// producer's opening failed against the dead broker and its other connection kept it alive), and
// a batch sent again after a failure arrives: every acknowledged event is in the topic, and only
// batches that failed may be there twice.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { clusterMemberForKafkaNode, killClusterMember, restartClusterMember, type ClusterMemberName } from '../../scripts/stack/cluster.js';
import { sendDeadlineMs } from '../../services/adapters/kafka/producer.js';
import { readTopic } from '../../services/adapters/kafka/read-topic.js';
import { runOssn, type CliRun } from '../support/ossn-cli.js';
import { clusterServers } from './support/cluster-servers.js';

const cluster = clusterServers();
const topic = `test.publish-failover.${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const env = { KAFKA_BROKERS: cluster.kafkaBrokers.join(','), OSSN_TOPIC: topic, OSSN_TOPIC_PARTITIONS: '1', LOG_LEVEL: 'info' };
const kafka = new Kafka({ clientId: 'publish-failover-test', brokers: cluster.kafkaBrokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
/** Killed and not yet restarted: restarted after the file whatever happened. */
let killed: ClusterMemberName | undefined;

/**
 * A publish ends by itself within the producer's deadline, plus the time `ossn publish` takes to
 * start (node, tsx, the topic check, the producer's opening) and to exit on a loaded machine.
 */
const publishBoundMs = sendDeadlineMs + 10_000;

afterAll(async () => {
  if (killed) await restartClusterMember(killed);
  await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] }).catch(() => undefined);
  await admin.disconnect();
});

interface Batch {
  events: ErpEvent[];
  runs: { code: number | null; ms: number; last: string }[];
  acknowledged: boolean;
}

let sequence = 0;
/** A batch of a few statuses of sales order `n`, each event unique. */
const newBatch = (n: number): Batch => ({
  events: Array.from({ length: 3 }, () => ({
    eventId: randomUUID(),
    type: 'SalesOrderStatusChanged',
    schemaVersion: 2,
    clientId: 'PF1',
    salesOrderNumber: `SO-${n}`,
    sequence: ++sequence,
    occurredAt: new Date().toISOString(),
    data: { purchaseOrderNumber: 'PO-1', statusId: 10 },
  })) as ErpEvent[],
  runs: [],
  acknowledged: false,
});

/** One `ossn publish -` of the batch; a process that does not end by itself is killed after 90 s and recorded as hung (code null). */
async function publish(batch: Batch, args: string[] = []): Promise<CliRun | undefined> {
  const input = batch.events.map((event) => JSON.stringify(event)).join('\n') + '\n';
  const started = Date.now();
  const run = await runOssn(['publish', ...args, '-'], env, { input, timeoutMs: 90_000 }).catch(() => undefined);
  const output = run ? (run.stderr + run.stdout).trim().split('\n') : ['hung: killed after 90 s'];
  batch.runs.push({ code: run?.code ?? null, ms: Date.now() - started, last: output[output.length - 1] ?? '' });
  batch.acknowledged = run?.code === 0;
  return run;
}

it('every ossn publish ends by itself while the partition leader is SIGKILLed, and every acknowledged event arrives', { timeout: 180_000 }, async () => {
  await admin.connect();
  const first = newBatch(0);
  expect((await publish(first, ['--create-topics']))?.code).toBe(0);
  const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
  const leader = metadata?.partitions[0]?.leader ?? 1;
  // The leader listed last: kafkajs asks the first listed broker for the metadata, which then keeps
  // naming the dead leader (as the broker to ask for a producer id, too) until it is fenced.
  const node = (await admin.describeCluster()).brokers.find((b) => b.nodeId === leader);
  const leaderAddress = `${node?.host}:${node?.port}`;
  expect(cluster.kafkaBrokers).toContain(leaderAddress);
  env.KAFKA_BROKERS = [...cluster.kafkaBrokers.filter((b) => b !== leaderAddress), leaderAddress].join(',');

  // A batch a second, each sent by an `ossn publish` of its own (they overlap while Kafka is slow),
  // and sent again a second after a failure until it is acknowledged: the batches whose publishes
  // start right after the kill meet a leader the metadata still names, both for their partition
  // and (one time in three) as the broker to ask for a producer id. At most `maxSending` batches
  // at once: while the leader is dead each publish waits out its deadline, and a new process every
  // second then piled up about 35 node processes on two cores, which starved the killed broker's
  // restart past its 120 s (CI, twice).
  const maxSending = 4;
  const batches: Batch[] = [first];
  const sending: Promise<void>[] = [];
  let unacknowledged = 0;
  let mostUnacknowledged = 0;
  const sendUntilAcknowledged = async (batch: Batch) => {
    mostUnacknowledged = Math.max(mostUnacknowledged, ++unacknowledged);
    try {
      for (;;) {
        await publish(batch);
        if (batch.acknowledged || gaveUp) return;
        await sleep(1_000);
      }
    } finally {
      unacknowledged--;
    }
  };
  let stopping = false;
  /** The restart failed: no batch is sent again, so no load runs into afterAll's restart. */
  let gaveUp = false;
  const launching = (async () => {
    for (let n = 1; !stopping; await sleep(1_000)) {
      if (unacknowledged >= maxSending) continue;
      const batch = newBatch(n++);
      batches.push(batch);
      sending.push(sendUntilAcknowledged(batch));
    }
  })();
  try {
    await sleep(3_000);
    killed = clusterMemberForKafkaNode(leader);
    await killClusterMember(killed);
    await sleep(15_000);
    await restartClusterMember(killed);
    killed = undefined;
    await sleep(3_000);
  } catch (error) {
    gaveUp = true;
    throw error;
  } finally {
    stopping = true;
  }
  await launching;
  await Promise.all(sending);

  const runs = batches.flatMap((b) => b.runs);
  const failed = runs.filter((r) => r.code !== 0);
  const longest = Math.max(...runs.map((r) => r.ms));
  console.log(
    `publish during a leader's SIGKILL: ${batches.length} batches (at most ${mostUnacknowledged} at once), ${runs.length} publishes, ${failed.length} failed and were sent again, longest ${(longest / 1000).toFixed(1)} s` +
      (failed.length > 0 ? `\n  failed: ${[...new Set(failed.map((r) => `exit ${r.code}: ${r.last.slice(0, 200)}`))].join(' | ')}` : ''),
  );
  // Every publish ended by itself, within the deadline; a failed one said why.
  for (const run of runs) {
    expect(run.code, `a publish hung: ${run.last}`).not.toBeNull();
    expect(run.ms, `a publish took ${run.ms} ms: ${run.last}`).toBeLessThan(publishBoundMs);
    if (run.code !== 0) expect(run.last, 'a failed publish says why').toMatch(/^ossn publish: /);
  }

  // Every acknowledged event is in the topic; only a batch that failed before may be there twice.
  const stored = new Map<string, number>();
  for (const message of await readTopic(kafka, topic)) {
    const { eventId } = JSON.parse(String(message.value)) as ErpEvent;
    stored.set(eventId, (stored.get(eventId) ?? 0) + 1);
  }
  for (const batch of batches) {
    expect(batch.acknowledged).toBe(true);
    for (const event of batch.events) {
      const copies = stored.get(event.eventId) ?? 0;
      if (batch.runs.length === 1) expect(copies, `event ${event.sequence}, acknowledged at the first send`).toBe(1);
      else expect(copies, `event ${event.sequence}, sent ${batch.runs.length} times`).toBeGreaterThanOrEqual(1);
    }
  }
  expect(stored.size).toBe(batches.reduce((sum, b) => sum + b.events.length, 0));
});
