import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { readPublishConfig } from '../../config/config.js';
import { createKafka } from '../../adapters/kafka/client.js';
import { connectProducer, type MessageProducer } from '../../adapters/kafka/producer.js';
import { ensureTopics, missingTopics, topicsReportLines } from '../../adapters/kafka/topics.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { checkNdjson, publishNdjson, type PublishReport } from '../../adapters/kafka/publish-events.js';
import { ProgressDisplay } from '../progress-display.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';
import { ExitCode } from '../exit-codes.js';
import { askKafka, commandKafka, serverWaitMs, topicsWaitMs } from '../server-waits.js';
import { UsageError } from '../usage.js';

const help = `usage: ossn publish [--create-topics | --dry-run] <file.ndjson|->

  Publishes ERP events, one JSON event a line (- reads stdin), to the event topic OSSN_TOPIC on the
  brokers KAFKA_BROKERS (its first line on stderr names both). Each line is validated against the
  event contract first and sent unchanged, keyed <clientId>:<salesOrderNumber>; a refused line is
  named with its number and reasons and the others are sent all the same.
  --create-topics   create the event topic and its dead-letter topic when missing (OSSN_TOPIC_PARTITIONS
                    partitions; replication as \`ossn setup\` chooses it)
  --dry-run         validate the file only: nothing is sent, no server is asked (KAFKA_BROKERS not needed)
  Exit code 0 when every line was sent (or, with --dry-run, is valid), 3 when some lines were refused,
  1 when it failed (Kafka did not answer within ${serverWaitMs / 1000} s, a missing file), 2 for a usage mistake.`;

export const publishCommand: Command = { help, run: publish };

/** The input, opened before any server is asked: a missing file is one line, not a stack trace. */
function openInput(file: string): { input: Readable; totalBytes?: number } {
  if (file === '-') return { input: process.stdin };
  let totalBytes: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error(`${file} is not a file`);
    totalBytes = stat.size;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new Error(`cannot read ${file}: ${reason}`);
  }
  // A file's size says how far along we are; stdin only how much was sent.
  return { input: createReadStream(file, 'utf8'), totalBytes };
}

function tellRefused(report: PublishReport): void {
  for (const { line, errors } of report.refused) process.stderr.write(`line ${line} refused: ${errors.join('; ')}\n`);
}

async function publish(argv: string[]): Promise<ExitCode> {
  const { positionals, values } = parseCommandLine(
    {
      name: 'publish',
      options: { 'create-topics': { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
      positionals: { names: '<file.ndjson|->', min: 1, max: 1 },
    },
    argv,
  );
  const file = positionals[0] as string;
  if (values['dry-run'] && values['create-topics']) {
    throw new UsageError('ossn publish: --dry-run sends nothing and creates nothing; drop --create-topics (see ossn publish --help)');
  }
  const { input, totalBytes } = openInput(file);
  const progress = new ProgressDisplay({ unit: 'events' });
  const track = (verb: string) => ({ sent }: PublishReport) => {
    const read = 'bytesRead' in input ? (input.bytesRead as number) : 0;
    // Events expected in all, from the bytes read so far per event sent.
    const total = totalBytes && read > 0 ? Math.max(sent, Math.round((sent * totalBytes) / read)) : undefined;
    progress.update(sent, total, `${verb}: `);
  };
  // A read failure while the line reader reads comes out of it (one line, exit 1); one before (Kafka
  // asked first) must not end the process with a stack trace.
  input.on('error', () => undefined);
  // Made where it is read: the reader starts at once, and lines read before a loop takes them would be lost.
  const lines = () => createInterface({ input, crlfDelay: Infinity });

  if (values['dry-run']) {
    const report = await checkNdjson(lines(), track('checking'));
    progress.finish();
    tellRefused(report);
    process.stdout.write(`dry run: ${report.sent} events valid, ${report.refused.length} lines refused; nothing sent\n`);
    return report.refused.length > 0 ? ExitCode.partial : ExitCode.ok;
  }

  const config = readPublishConfig();
  // kafkajs's own lines (retries, "does not host this topic-partition") are not for this reader.
  const logger = createLogger('ossn-publish', config.logLevel === 'info' ? 'fatal' : config.logLevel);
  // The questions about topics give up soon (a Kafka away is named at once); the producer's sends
  // keep the client's full retries, which ride out a leader's failover.
  const asking = commandKafka(config.kafkaBrokers, 'ossn-publish', logger);
  const kafka = createKafka(config.kafkaBrokers, 'ossn-publish', logger);
  process.stderr.write(`publishing to topic ${config.topic} (OSSN_TOPIC) on ${config.kafkaBrokers.join(',')} (KAFKA_BROKERS)\n`);

  const missing = await askKafka(config.kafkaBrokers, () => missingTopics(asking, config.topic));
  if (missing.length > 0 && !values['create-topics']) {
    const what = missing.length > 1 ? `topics ${missing.join(' and ')} do not exist; create them` : `topic ${missing[0]} does not exist; create it`;
    process.stderr.write(
      `ossn publish: ${what} with \`ossn setup\`, or run \`ossn publish --create-topics ${file}\` (${config.topicPartitions} partitions, OSSN_TOPIC_PARTITIONS)\n`,
    );
    return ExitCode.failure;
  }
  if (missing.length > 0) {
    const { said, warnings } = topicsReportLines(await askKafka(config.kafkaBrokers, () => ensureTopics(kafka, config.topic, config.topicPartitions), topicsWaitMs), config.topicPartitions);
    for (const line of [said, ...warnings]) process.stderr.write(`${line}\n`);
  }

  let producer: MessageProducer | undefined;
  try {
    producer = await askKafka(config.kafkaBrokers, () => connectProducer(kafka));
    const report = await publishNdjson(lines(), producer, config.topic, track('publishing'));
    progress.finish();
    tellRefused(report);
    process.stdout.write(`sent ${report.sent} events to ${config.topic}; refused ${report.refused.length} lines\n`);
    return report.refused.length > 0 ? ExitCode.partial : ExitCode.ok;
  } finally {
    await producer?.close();
  }
}
