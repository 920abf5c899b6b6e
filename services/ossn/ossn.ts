import { ConfigError } from '../plumbing/config/env.js';
import { UsageError } from './usage.js';

const usage = `usage: ossn <command>

  start                      the all-in-one local run: projector, query service, demo data
                             (npm start brings up a local stack when no servers are given)
  serve                      the query service (SOAP and JSON)
  projector                  the projector (Kafka -> MongoDB read models)
  setup [--demo]             create the topics and the read-model indexes (and a demo credential)
  publish [--create-topics] <file.ndjson|->
                             publish ERP events (validated first)
  demo-events --clients N --orders M [--seed S]
                             write a realistic ERP event data set (NDJSON) to stdout
  credentials ...            manage partner credentials (ossn credentials for help)
  dlq list|redrive ...       read dead letters, send fixed ones again (ossn dlq for help)
  replay [--discard|--drop-previous]
                             rebuild the read models into the next version, then switch to it
  status [--probe URL]...    one screen: servers, versions, lag, dead letters, credentials

Configuration comes from environment variables; see docs/operations.md (Configuration).`;

const commands: Record<string, () => Promise<(argv: string[]) => Promise<void>>> = {
  start: async () => (await import('./commands/start.js')).startCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  projector: async () => (await import('./commands/projector.js')).projectorCommand,
  setup: async () => (await import('./commands/setup.js')).setupCommand,
  publish: async () => (await import('./commands/publish.js')).publishCommand,
  'demo-events': async () => (await import('./commands/demo-events.js')).demoEventsCommand,
  credentials: async () => (await import('./commands/credentials.js')).credentialsCommand,
  dlq: async () => (await import('./commands/dlq.js')).dlqCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
};

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const load = name ? commands[name] : undefined;
  if (!load) throw new UsageError(usage);
  await (await load())(rest);
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`ossn: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
  // Whatever a failed start left running (a connection being made, a timer) must not keep the
  // process alive, deaf to SIGTERM now that its command has given up.
  process.exit();
}
