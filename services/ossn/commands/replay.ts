import { constants } from 'node:os';
import { readProjectorConfig } from '../../config/config.js';
import { createKafka } from '../../adapters/kafka/client.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { discardBuild, dropPrevious, replay, type ReplayContext } from '../../replay/replay.js';
import { formatDuration, ProgressDisplay } from '../progress-display.js';
import { UsageError } from '../usage.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';
import { askKafka, commandKafka, connectMongoFor } from '../server-waits.js';
import { missingTopics } from '../../adapters/kafka/topics.js';

const usage = `usage: ossn replay                  rebuild the read models from the topic into the next version and switch to it
                             (resumes a rebuild that was stopped)
ossn replay --discard        throw away a stopped or refused rebuild
ossn replay --drop-previous  drop the version the last switch replaced`;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function rebuildAndSwitch(ctx: ReplayContext): Promise<void> {
  const started = Date.now();
  const progress = new ProgressDisplay({ unit: 'events' });
  const stop = new AbortController();
  let lastWait: string | undefined;
  // The first signal stops the replay where it is (it says so, and how to resume); a second one,
  // while that stop waits on a server, ends the process at once: every step can be run again.
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      progress.finish();
      say('stopping… (once more to exit at once)');
      stop.abort();
      return;
    }
    say('stopped at once; `ossn replay` goes on from where it was once its lock has lapsed, `ossn replay --discard` throws away a rebuild not switched to');
    process.exit(128 + constants.signals[signal]);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await replay(ctx, {
      signal: stop.signal,
      onProgress: (done, total) => progress.update(done, total, 'rebuilding: '),
      onVerified: (verify) =>
        say(
          `documents: ${verify.written.orderStatus} order status (fresh fold ${verify.expected.orderStatus}), ${verify.written.shipments} shipments (fresh fold ${verify.expected.shipments}); ` +
            `${verify.sampled} sales orders folded afresh in ${verify.passes} read${verify.passes === 1 ? '' : 's'} of the topic, ${verify.mismatches.length} differ${verify.mismatches.length ? `: ${verify.mismatches.slice(0, 10).join(', ')}` : ''}`,
        ),
      onWait: (what) => {
        // Each wait once, when it begins: the hand-over asks several times a second.
        if (what === lastWait) return;
        lastWait = what;
        say(`  ${what}`);
      },
      onPhase: (phase, build) => {
        if (phase === 'rebuilding') {
          say(`rebuilding read-model version ${build.version} from the beginning of ${ctx.config.topic} while version ${build.previous} serves (started ${build.startedAt.toISOString()})`);
        } else if (phase === 'verifying') {
          progress.finish(`caught up after ${formatDuration((Date.now() - started) / 1000)}; checking version ${build.version} against a fresh fold of the events`);
        } else if (phase === 'switching') {
          say(`switching to version ${build.version}: the projectors of version ${build.previous} stop writing it and version ${build.version} catches up with them`);
        } else {
          say(`settling change and visible times of version ${build.version} against version ${build.previous}`);
        }
      },
    });
    progress.finish();
    if (result.outcome === 'stopped' && result.switched) {
      say(`stopped; version ${result.build.version} is active, its change and visible times not all settled against version ${result.build.previous}: \`ossn replay\` settles them`);
      process.exitCode = 1;
      return;
    }
    if (result.outcome === 'stopped') {
      say(`stopped; version ${result.build.version} is not active. \`ossn replay\` resumes it, \`ossn replay --discard\` throws it away`);
      process.exitCode = 1;
      return;
    }
    if (result.outcome === 'switched' && !result.verify) {
      say(`version ${result.build.version} was switched to already, by a replay stopped before it settled the times; settled them now`);
    }
    if (result.outcome === 'refused') {
      say(`refused: version ${result.build.version} does not match its events and stays inactive; \`ossn replay --discard\` throws it away`);
      process.exitCode = 1;
      return;
    }
    const { active, changeTimes, shipmentTimes } = result;
    say(`change times: ${changeTimes.carried} carried over from version ${active.previous}, ${changeTimes.stamped} not shown there (or not so) stamped after the switch`);
    say(`shipment times: ${shipmentTimes.carried} sales orders carried over from version ${active.previous}, ${shipmentTimes.stamped} with something not shown there (or not so) stamped after the switch`);
    say(`version ${active.version} is active since ${active.activatedAt.toISOString()} (was ${active.previous}); query services and ossn projector follow within seconds`);
    say(`took ${formatDuration((Date.now() - started) / 1000)}; version ${active.previous} stays until \`ossn replay --drop-previous\``);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export const replayCommand: Command = { help: usage, run: runReplay };

async function runReplay(argv: string[]): Promise<void> {
  const { values } = parseCommandLine({ name: 'replay', options: { discard: { type: 'boolean' }, 'drop-previous': { type: 'boolean' } } }, argv);
  if (values.discard && values['drop-previous']) throw new UsageError('ossn replay: --discard and --drop-previous are two different things; give one (see ossn replay --help)');
  const config = readProjectorConfig();
  const logger = createLogger('ossn-replay', config.logLevel === 'info' ? 'warn' : config.logLevel);
  const mongo = await connectMongoFor('replay', config.store.mongodbUri);
  // Kafka asked once before any work, by a client that gives up: one away is said in one line that
  // names it (not tens of seconds of the Kafka client's own retry lines, then a bare ECONNREFUSED).
  const asking = commandKafka(config.kafkaBrokers, 'ossn-replay', createLogger('ossn-replay', config.logLevel === 'info' ? 'fatal' : config.logLevel));
  await askKafka(config.kafkaBrokers, () => missingTopics(asking, config.topic)).catch(async (error: unknown) => {
    await mongo.close();
    throw error;
  });
  const ctx: ReplayContext = { config, db: mongo.db(config.store.database), kafka: createKafka(config.kafkaBrokers, 'ossn-replay', logger), logger };
  try {
    if (values.discard) {
      const build = await discardBuild(ctx);
      say(build ? `discarded the rebuild of version ${build.version}` : 'no rebuild in progress');
    } else if (values['drop-previous']) {
      const dropped = await dropPrevious(ctx);
      say(dropped === undefined ? 'no previous version to drop' : `dropped version ${dropped}`);
    } else {
      await rebuildAndSwitch(ctx);
    }
  } finally {
    await mongo.close();
  }
}
