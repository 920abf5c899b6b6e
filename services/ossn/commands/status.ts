import { readProjectorConfig, readQueryConfig } from '../../config/config.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { createMongoClient } from '../../adapters/mongodb/connect.js';
import { allServersAnswer, gatherStatus } from '../status/gather-status.js';
import { renderStatus } from '../status/render-status.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';
import { ExitCode } from '../exit-codes.js';
import { commandKafka } from '../server-waits.js';

/** Each part of the report gives up after this: the whole report comes within it (and a second to exit). */
const partDeadlineMs = 5_000;

const help = `usage: ossn status [--probe URL]... [--json]

  One screen: which servers answer (Kafka, MongoDB, Redis when REDIS_URL is set, and the /readyz of
  each --probe), the active and any building read-model version, the projector group's members, lag
  per partition and partitions assigned to no member, dead letters in the last hour and in all,
  credentials active and disabled, and each push subscription: enabled or not, its deliveries
  pending, parked and delivered, its lag, and the pusher holding its lease and whether the lease is
  live (NOT PUSHED when an enabled one has no live lease). Each part gives up after ${partDeadlineMs / 1000} s, all of
  them at once: a server away is named and the rest still shows.
  --probe URL   also ask a query service or projector (its operators' base URL) whether it is ready
  --json        the same as one JSON object
  Exit code 0 when every server answers, 1 when one does not (the report is printed all the same).`;

export const statusCommand: Command = { help, run: status };

async function status(argv: string[]): Promise<ExitCode> {
  const { values } = parseCommandLine({ name: 'status', options: { probe: { type: 'string', multiple: true }, json: { type: 'boolean' } } }, argv);
  const config = readProjectorConfig();
  const { redisUrl } = readQueryConfig();
  const logger = createLogger('ossn-status', 'fatal');
  // Gives up on the store within half a part's deadline: the lag's part reads the active version first.
  const mongo = createMongoClient(config.store.mongodbUri, 'ossn-status', { serverSelectionTimeoutMs: partDeadlineMs / 2 });
  const kafka = commandKafka(config.kafkaBrokers, 'ossn-status', logger);
  try {
    const storeConnected = mongo.connect();
    const report = await gatherStatus({ config, db: mongo.db(config.store.database), kafka, redisUrl, probeUrls: values.probe ?? [], timeoutMs: partDeadlineMs, storeConnected });
    process.stdout.write(values.json ? `${JSON.stringify({ ...report, at: new Date(), allServersAnswer: allServersAnswer(report) }, null, 2)}\n` : renderStatus(report));
    return allServersAnswer(report) ? ExitCode.ok : ExitCode.failure;
  } finally {
    // A store that never answered has nothing to close: not waited for (the exit is, by ossn.ts).
    void mongo.close().catch(() => undefined);
  }
}
