import { parseArgs } from 'node:util';
import { readProjectorConfig, readQueryConfig } from '../../plumbing/config/config.js';
import { createKafka } from '../../adapters/kafka/client.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { createMongoClient } from '../../adapters/mongodb/connect.js';
import { gatherStatus } from '../status/gather-status.js';
import { renderStatus } from '../status/render-status.js';
import { UsageError } from '../usage.js';

const usage = `ossn status [--probe URL]...
  one screen: servers, active and building read-model version, lag per partition, dead letters, credentials
  --probe URL   also ask a query service or projector (its base URL) whether it is ready`;

export async function statusCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { probe: { type: 'string', multiple: true } } });
  if (positionals.length > 0) throw new UsageError(usage);
  const config = readProjectorConfig();
  const { redisUrl } = readQueryConfig();
  const logger = createLogger('ossn-status', 'fatal');
  // Connects on its first read, and gives up on the store after 3 s: the report shows the rest then.
  const mongo = createMongoClient(config.store.mongodbUri, 'ossn-status', { serverSelectionTimeoutMs: 3_000 });
  const kafka = createKafka(config.kafkaBrokers, 'ossn-status', logger);
  try {
    const report = await gatherStatus({ config, db: mongo.db(config.store.database), kafka, redisUrl, probeUrls: values.probe ?? [] });
    process.stdout.write(renderStatus(report));
  } finally {
    await mongo.close();
  }
}
