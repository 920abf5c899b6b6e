import { parseArgs } from 'node:util';
import { deadLetterTopic } from '../../../contracts/transport.js';
import { readPublishConfig, readStoreConfig, type StoreConfig } from '../../plumbing/config/config.js';
import { createKafka } from '../../adapters/kafka/client.js';
import { connectProducer } from '../../adapters/kafka/producer.js';
import { readTopic } from '../../adapters/kafka/read-topic.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { matches, redriveMessage, toDeadLetterRecord, type DeadLetterFilter, type DeadLetterRecord } from '../../domain/dead-letters/dead-letter-records.js';
import { judgeRedrive, salesOrdersOf, type RedriveVerdict } from '../dlq/redrive-verdict.js';
import { readActiveVersion } from '../../adapters/mongodb/active-version.js';
import { connectMongo } from '../../adapters/mongodb/connect.js';
import { readModelCollections } from '../../adapters/mongodb/documents.js';
import { loadStates } from '../../adapters/mongodb/writes.js';
import { UsageError } from '../usage.js';

const usage = `ossn dlq list [--reason KIND] [--since TIME] [--until TIME]
    the dead letters: when, reason kind and text, source partition:offset, key, and their id
ossn dlq redrive (ID... | --all) [--reason KIND] [--since TIME] [--until TIME]
    sends the chosen dead letters back to the event topic (after the ERP fixed what they lacked),
    each only if it applies now: judged by the projector's fold on its sales order's state in the
    active read-model version (let the projector catch up first). Refused, with the reason:
    a letter that is still not an event of the contract; one at or below the sequence its sales
    order last applied (the ERP must republish what it carries above that sequence); one the fold
    rejects again. Letters of one sales order go in sequence order. Exit code 0 when every chosen
    letter was sent, 3 when any was refused (the others are sent all the same)
  ID is <partition>:<offset> in the dead-letter topic, as list shows it
  KIND is one of not-json, schema, unknown-type, unknown-schema-version, wrong-key, rejected
  TIME is an ISO 8601 time (2025-05-01T10:00:00Z) or an age: 30m, 2h, 7d`;

const units: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseTime(value: string | undefined, name: string, now = Date.now()): Date | undefined {
  if (value === undefined) return undefined;
  const age = /^(\d+)([smhd])$/.exec(value);
  if (age) return new Date(now - Number(age[1]) * (units[age[2] as string] as number));
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--${name} must be an ISO 8601 time or an age like 30m, 2h, 7d; got "${value}"`);
  }
  return date;
}

function filterOf(values: { reason?: string; since?: string; until?: string }, ids: string[]): DeadLetterFilter {
  for (const id of ids) if (!/^\d+:\d+$/.test(id)) throw new UsageError(`a dead letter id is <partition>:<offset>, got "${id}"\n${usage}`);
  return {
    kind: values.reason,
    since: parseTime(values.since, 'since'),
    until: parseTime(values.until, 'until'),
    ids: ids.length > 0 ? new Set(ids) : undefined,
  };
}

function line(record: DeadLetterRecord): string {
  return [record.failedAt.toISOString(), record.kind, `source ${record.source}`, `key ${record.key ?? '(none)'}`, `id ${record.id}`, record.reason].join('\t');
}

export async function dlqCommand(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, all: { type: 'boolean' } },
  });
  const [action, ...ids] = positionals;
  if (action !== 'list' && action !== 'redrive') throw new UsageError(usage);
  if (action === 'list' && ids.length > 0) throw new UsageError(usage);
  const filter = filterOf(values, ids);
  if (action === 'redrive' && ids.length === 0 && !values.all) {
    throw new UsageError(`ossn dlq redrive needs the ids of the dead letters to send, or --all (with the filters)\n${usage}`);
  }

  const config = readPublishConfig();
  // Read before anything is done, so that a missing MONGODB_URI stops a redrive at once.
  const store = action === 'redrive' ? readStoreConfig() : undefined;
  const logger = createLogger('ossn-dlq', config.logLevel === 'info' ? 'warn' : config.logLevel);
  const kafka = createKafka(config.kafkaBrokers, 'ossn-dlq', logger);
  const topic = deadLetterTopic(config.topic);
  const chosen = (await readTopic(kafka, topic)).map(toDeadLetterRecord).filter((record) => matches(record, filter));

  if (action === 'list' || store === undefined) {
    for (const record of chosen) process.stdout.write(`${line(record)}\n`);
    process.stdout.write(`${chosen.length} dead letters in ${topic}\n`);
    return;
  }
  const missing = ids.filter((id) => !chosen.some((record) => record.id === id));
  if (missing.length > 0) throw new UsageError(`no dead letter ${missing.join(', ')} in ${topic} (matching the filters); see ossn dlq list`);
  const verdicts = await judgeAgainstActiveVersion(store, chosen);
  const toSend = verdicts.flatMap((v) => (v.send ? [v.record] : []));
  if (toSend.length > 0) {
    const producer = await connectProducer(kafka);
    try {
      await producer.send(config.topic, toSend.map(redriveMessage));
    } finally {
      await producer.close();
    }
  }
  for (const verdict of verdicts) process.stdout.write(`${verdictLine(verdict)}\n`);
  const refused = verdicts.flatMap((v) => (v.send ? [] : [v.record.id]));
  process.stdout.write(`re-sent ${toSend.length} dead letters to ${config.topic}${refused.length > 0 ? `; refused ${refused.length}: ${refused.join(', ')}` : ''}\n`);
  // A refusal is not a failure of the command, yet a script must not take it for a redrive that applied.
  if (refused.length > 0) process.exitCode = 3;
}

function verdictLine(verdict: RedriveVerdict): string {
  const { id, kind, key } = verdict.record;
  const about = `(${kind}, key ${key ?? '(none)'})`;
  return verdict.send ? `re-sent ${id}: applies on top of sequence ${verdict.after} ${about}` : `refused ${id}: ${verdict.reason} ${about}`;
}

/** The verdicts on the chosen letters, from the stored states of their sales orders in the version the query services answer from. */
async function judgeAgainstActiveVersion(store: StoreConfig, chosen: DeadLetterRecord[]): Promise<RedriveVerdict[]> {
  const mongo = await connectMongo(store.mongodbUri, 'ossn-dlq');
  try {
    const db = mongo.db(store.database);
    const active = await readActiveVersion(db, store.readModelVersion);
    const stored = await loadStates(readModelCollections(db, active.version), salesOrdersOf(chosen));
    return judgeRedrive(chosen, stored);
  } finally {
    await mongo.close();
  }
}
