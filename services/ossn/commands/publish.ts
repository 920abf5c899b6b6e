import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { readPublishConfig } from '../../plumbing/config/config.js';
import { createKafka } from '../../adapters/kafka/client.js';
import { connectProducer, type MessageProducer } from '../../adapters/kafka/producer.js';
import { ensureTopics, missingTopics, topicsReportLines } from '../../adapters/kafka/topics.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { publishNdjson } from '../../adapters/kafka/publish-events.js';
import { ProgressDisplay } from '../progress-display.js';
import { UsageError } from '../usage.js';

const usage = `usage: ossn publish [--create-topics] <file.ndjson|->
  --create-topics   create the event topic and its dead-letter topic when missing (OSSN_TOPIC_PARTITIONS partitions;
                    replication as \`ossn setup\` chooses it)`;

/** How long `ossn publish` may take to exit once it has finished (see publishCommand's end). */
const exitGraceMs = 2_000;

export async function publishCommand(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { 'create-topics': { type: 'boolean' } } });
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new UsageError(usage);
  const config = readPublishConfig();
  // kafkajs's own lines (retries, "does not host this topic-partition") are not for this reader.
  const logger = createLogger('ossn-publish', config.logLevel === 'info' ? 'fatal' : config.logLevel);
  const kafka = createKafka(config.kafkaBrokers, 'ossn-publish', logger);

  const missing = await missingTopics(kafka, config.topic);
  if (missing.length > 0 && !values['create-topics']) {
    const what = missing.length > 1 ? `topics ${missing.join(' and ')} do not exist; create them` : `topic ${missing[0]} does not exist; create it`;
    process.stderr.write(
      `ossn publish: ${what} with \`ossn setup\`, or run \`ossn publish --create-topics ${file}\` (${config.topicPartitions} partitions, OSSN_TOPIC_PARTITIONS)\n`,
    );
    process.exitCode = 1;
    return;
  }
  if (missing.length > 0) {
    const { said, warnings } = topicsReportLines(await ensureTopics(kafka, config.topic, config.topicPartitions), config.topicPartitions);
    for (const line of [said, ...warnings]) process.stderr.write(`${line}\n`);
  }

  const input = file === '-' ? process.stdin : createReadStream(file, 'utf8');
  // A file's size says how far along we are; stdin only how much was sent.
  const totalBytes = file === '-' ? undefined : statSync(file).size;
  const progress = new ProgressDisplay({ unit: 'events' });
  let producer: MessageProducer | undefined;
  try {
    producer = await connectProducer(kafka);
    const report = await publishNdjson(createInterface({ input, crlfDelay: Infinity }), producer, config.topic, ({ sent }) => {
      const read = 'bytesRead' in input ? input.bytesRead : 0;
      // Events expected in all, from the bytes read so far per event sent.
      const total = totalBytes && read > 0 ? Math.max(sent, Math.round((sent * totalBytes) / read)) : undefined;
      progress.update(sent, total, 'publishing: ');
    });
    progress.finish();
    for (const { line, errors } of report.refused) {
      process.stderr.write(`line ${line} refused: ${errors.join('; ')}\n`);
    }
    process.stdout.write(`sent ${report.sent} events to ${config.topic}; refused ${report.refused.length} lines\n`);
    if (report.refused.length > 0) process.exitCode = 1;
  } finally {
    await producer?.close();
    // Everything is said: a send given up on (producer.ts) may still have kafkajs retrying it, or a
    // disconnect waiting for a request that never ends, neither of which may keep `ossn publish`
    // from exiting. A clean run exits before this (the timer does not hold the process open).
    setTimeout(() => process.exit(), exitGraceMs).unref();
  }
}
