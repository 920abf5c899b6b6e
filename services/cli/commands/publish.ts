import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { readPublishConfig } from '../../config/config.js';
import { createKafka } from '../../kafka/client.js';
import { connectSink } from '../../kafka/producer.js';
import { createLogger } from '../../logging/logger.js';
import { publishNdjson } from '../../publishing/publish-events.js';
import { UsageError } from '../usage.js';

export async function publishCommand(argv: string[]): Promise<void> {
  const [file] = argv;
  if (!file || argv.length > 1) throw new UsageError('usage: ossn publish <file.ndjson|->');
  const config = readPublishConfig();
  const logger = createLogger('ossn-publish', config.logLevel === 'info' ? 'warn' : config.logLevel);
  const input = file === '-' ? process.stdin : createReadStream(file, 'utf8');
  const sink = await connectSink(createKafka(config.kafkaBrokers, 'ossn-publish', logger));
  try {
    const report = await publishNdjson(createInterface({ input, crlfDelay: Infinity }), sink, config.topic);
    for (const { line, errors } of report.refused) {
      process.stderr.write(`line ${line} refused: ${errors.join('; ')}\n`);
    }
    process.stdout.write(`sent ${report.sent} events to ${config.topic}; refused ${report.refused.length} lines\n`);
    if (report.refused.length > 0) process.exitCode = 1;
  } finally {
    await sink.close();
  }
}
