import { deadLetterTopic } from '../../../contracts/transport.js';
import { readPublishConfig, readStoreConfig, type StoreConfig } from '../../config/config.js';
import { connectProducer } from '../../adapters/kafka/producer.js';
import { readTopic } from '../../adapters/kafka/read-topic.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { inTimeOrder, matches, redriveMessage, toDeadLetterRecord, type DeadLetterFilter, type DeadLetterRecord } from '../../domain/dead-letters/dead-letter-records.js';
import { judgeRedrive, salesOrdersOf, type RedriveVerdict } from '../dlq/redrive-verdict.js';
import { readActiveVersion } from '../../adapters/mongodb/active-version.js';
import { missingTopics } from '../../adapters/kafka/topics.js';
import { readModelCollections } from '../../adapters/mongodb/documents.js';
import { loadStates } from '../../adapters/mongodb/writes.js';
import { UsageError } from '../usage.js';
import { durationMs } from '../durations.js';
import type { Command } from '../command.js';
import { parseCommandLine, takeAction } from '../command-line.js';
import { ExitCode } from '../exit-codes.js';
import { askKafka, commandKafka, connectMongoFor } from '../server-waits.js';

const usage = `usage: ossn dlq list [--reason KIND] [--since TIME] [--until TIME] [--json]
    the dead letters, oldest first: when, reason kind, their id, the event's type and eventId (when
    it is JSON that carries them), source partition:offset, key, and the reason's text
ossn dlq show ID
    the letter's payload, as it came, on stdout (what it is and why it failed on stderr), to edit and
    \`ossn publish\` again, say
ossn dlq redrive (ID... | --all) [--reason KIND] [--since TIME] [--until TIME]
    sends the chosen dead letters back to the event topic (after the ERP fixed what they lacked),
    each only if it applies now: judged by the projector's fold on its sales order's state in the
    active read-model version (let the projector catch up first). Refused, with the reason:
    a letter that is still not an event of the contract; one at or below the sequence its sales
    order last applied (the ERP must republish what it carries above that sequence); one the fold
    rejects again. Letters of one sales order go in sequence order. Exit code 0 when every chosen
    letter was sent, 3 when any was refused (the others are sent all the same)
  ID is <partition>:<offset> in the dead-letter topic, as list shows it
  The dead-letter topic is OSSN_TOPIC's, with .dlq, on KAFKA_BROKERS; redrive also reads MONGODB_URI
  KIND is one of not-json, schema, unknown-type, unknown-schema-version, wrong-key, rejected
  TIME is an ISO 8601 time (2025-05-01T10:00:00Z) or an age: 30m, 2h, 7d`;

function parseTime(value: string | undefined, name: string, now = Date.now()): Date | undefined {
  if (value === undefined) return undefined;
  const age = durationMs(value);
  if (age !== undefined) return new Date(now - age);
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`ossn dlq: --${name} must be an ISO 8601 time or an age like 30m, 2h, 7d; got "${value}"`);
  }
  return date;
}

function filterOf(values: { reason?: string; since?: string; until?: string }, ids: string[]): DeadLetterFilter {
  for (const id of ids) if (!/^\d+:\d+$/.test(id)) throw new UsageError(`ossn dlq: a dead letter id is <partition>:<offset>, got "${id}" (see ossn dlq --help)`);
  return {
    kind: values.reason,
    since: parseTime(values.since, 'since'),
    until: parseTime(values.until, 'until'),
    ids: ids.length > 0 ? new Set(ids) : undefined,
  };
}

function line(record: DeadLetterRecord): string {
  return [
    record.failedAt.toISOString(),
    record.kind,
    `id ${record.id}`,
    `type ${record.eventType ?? '-'}`,
    `event ${record.eventId ?? '-'}`,
    `source ${record.source}`,
    `key ${record.key ?? '(none)'}`,
    record.reason,
  ].join('\t');
}

/** A letter as `dlq list --json` gives it: everything list shows, the payload left to `dlq show`. */
function listed(record: DeadLetterRecord) {
  const { id, failedAt, kind, reason, source, key, eventId, eventType } = record;
  return { id, failedAt, kind, reason, source, key: key ?? null, eventId: eventId ?? null, eventType: eventType ?? null };
}

const filterOptions = { reason: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' } } as const;
const options = { ...filterOptions, all: { type: 'boolean' }, json: { type: 'boolean' } } as const;
const actions = ['list', 'show', 'redrive'] as const;

export const dlqCommand: Command = { help: usage, run: dlq };

async function dlq(argv: string[]): Promise<ExitCode> {
  const { action, rest } = takeAction('dlq', actions, argv);
  const { values, positionals: ids } = parseCommandLine(
    {
      name: `dlq ${action}`,
      options,
      accepts: action === 'list' ? ['reason', 'since', 'until', 'json'] : action === 'show' ? [] : ['reason', 'since', 'until', 'all'],
      positionals:
        action === 'list' ? { names: '', min: 0, max: 0 } : action === 'show' ? { names: 'ID', min: 1, max: 1 } : { names: 'ID...', min: 0, max: Infinity },
    },
    rest,
  );
  const filter = filterOf(values, ids);
  if (action === 'redrive' && ids.length === 0 && !values.all) {
    throw new UsageError('ossn dlq redrive: give the ids of the dead letters to send, or --all (with the filters) (see ossn dlq --help)');
  }

  const config = readPublishConfig();
  // Read before anything is done, so that a missing MONGODB_URI stops a redrive at once.
  const store = action === 'redrive' ? readStoreConfig() : undefined;
  const logger = createLogger('ossn-dlq', config.logLevel === 'info' ? 'fatal' : config.logLevel);
  const kafka = commandKafka(config.kafkaBrokers, 'ossn-dlq', logger);
  const topic = deadLetterTopic(config.topic);
  // The first question bounded: a Kafka away is named within the wait, not after the client's retries.
  const absent = (await askKafka(config.kafkaBrokers, () => missingTopics(kafka, config.topic))).includes(topic);
  const chosen = absent ? [] : inTimeOrder((await readTopic(kafka, topic)).map(toDeadLetterRecord).filter((record) => matches(record, filter)));

  if (action === 'list') {
    if (values.json) {
      process.stdout.write(`${JSON.stringify(chosen.map(listed), null, 2)}\n`);
      return ExitCode.ok;
    }
    for (const record of chosen) process.stdout.write(`${line(record)}\n`);
    process.stdout.write(`${chosen.length} dead letters in ${topic}${absent ? ' (the topic does not exist)' : ''}\n`);
    return ExitCode.ok;
  }
  const missing = ids.filter((id) => !chosen.some((record) => record.id === id));
  if (missing.length > 0) throw new Error(`no dead letter ${missing.join(', ')} in ${topic}${action === 'redrive' ? ' (matching the filters)' : ''}; see ossn dlq list`);
  if (action === 'show') {
    const [record] = chosen as [DeadLetterRecord];
    process.stderr.write(`${line(record)}\n`);
    process.stdout.write(record.message.value ?? Buffer.alloc(0));
    return ExitCode.ok;
  }
  if (store === undefined) return ExitCode.failure;
  const verdicts = await judgeAgainstActiveVersion(store, chosen);
  const toSend = verdicts.flatMap((v) => (v.send ? [v.record] : []));
  if (toSend.length > 0) {
    const producer = await askKafka(config.kafkaBrokers, () => connectProducer(kafka));
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
  return refused.length > 0 ? ExitCode.partial : ExitCode.ok;
}

function verdictLine(verdict: RedriveVerdict): string {
  const { id, kind, key } = verdict.record;
  const about = `(${kind}, key ${key ?? '(none)'})`;
  return verdict.send ? `re-sent ${id}: applies on top of sequence ${verdict.after} ${about}` : `refused ${id}: ${verdict.reason} ${about}`;
}

/** The verdicts on the chosen letters, from the stored states of their sales orders in the version the query services answer from. */
async function judgeAgainstActiveVersion(store: StoreConfig, chosen: DeadLetterRecord[]): Promise<RedriveVerdict[]> {
  const mongo = await connectMongoFor('dlq', store.mongodbUri);
  try {
    const db = mongo.db(store.database);
    const active = await readActiveVersion(db, store.readModelVersion);
    const stored = await loadStates(readModelCollections(db, active.version), salesOrdersOf(chosen));
    return judgeRedrive(chosen, stored);
  } finally {
    await mongo.close();
  }
}
