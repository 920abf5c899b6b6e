import { parseArgs } from 'node:util';
import { deadLetterTopic } from '../../../contracts/transport.js';
import { readPublishConfig } from '../../config/config.js';
import { createKafka } from '../../kafka/client.js';
import { connectSink } from '../../kafka/producer.js';
import { readTopic } from '../../kafka/read-topic.js';
import { createLogger } from '../../logging/logger.js';
import { matches, redriveMessage, toDeadLetterRecord, type DeadLetterFilter, type DeadLetterRecord } from '../../dead-letters/dead-letter-records.js';
import { UsageError } from '../usage.js';

const usage = `ossn dlq list [--reason KIND] [--since TIME] [--until TIME]
    the dead letters: when, reason kind and text, source partition:offset, key, and their id
ossn dlq redrive (ID... | --all) [--reason KIND] [--since TIME] [--until TIME]
    sends the chosen dead letters back to the event topic (after the ERP fixed what they lacked);
    one sent twice is applied once
  ID is <partition>:<offset> in the dead-letter topic, as list shows it
  KIND is one of not-json, schema, unknown-type, unknown-schema-version, wrong-key, rejected
  TIME is an ISO 8601 time (2025-05-01T10:00:00Z) or an age: 30m, 2h, 7d`;

const units: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseTime(value: string | undefined, name: string, now = Date.now()): Date | undefined {
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
  const logger = createLogger('ossn-dlq', config.logLevel === 'info' ? 'warn' : config.logLevel);
  const kafka = createKafka(config.kafkaBrokers, 'ossn-dlq', logger);
  const topic = deadLetterTopic(config.topic);
  const chosen = (await readTopic(kafka, topic)).map(toDeadLetterRecord).filter((record) => matches(record, filter));

  if (action === 'list') {
    for (const record of chosen) process.stdout.write(`${line(record)}\n`);
    process.stdout.write(`${chosen.length} dead letters in ${topic}\n`);
    return;
  }
  const missing = ids.filter((id) => !chosen.some((record) => record.id === id));
  if (missing.length > 0) throw new UsageError(`no dead letter ${missing.join(', ')} in ${topic} (matching the filters); see ossn dlq list`);
  const sink = await connectSink(kafka);
  try {
    await sink.send(config.topic, chosen.map(redriveMessage));
  } finally {
    await sink.close();
  }
  for (const record of chosen) process.stdout.write(`re-sent ${record.id} (${record.kind}, key ${record.key ?? '(none)'})\n`);
  process.stdout.write(`re-sent ${chosen.length} dead letters to ${config.topic}\n`);
}
