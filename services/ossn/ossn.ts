import { readFileSync } from 'node:fs';
import type { Command } from './command.js';
import { asksForHelp } from './command-line.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { UsageError } from './usage.js';
import { ConfigError } from '../config/env.js';

const help = `usage: ossn <command> [options]      ossn <command> --help (or ossn help <command>)      ossn --version

  start                      the all-in-one local run: projector, query service, demo data
                             (npm start brings up a local stack when no servers are given)
  serve                      the query service (SOAP and JSON)
  projector                  the projector (Kafka -> MongoDB read models)
  setup [--demo]             create the topics and the read-model indexes (and a demo credential)
  publish [--create-topics|--dry-run] <file.ndjson|->
                             publish ERP events (validated first)
  demo-events --clients N --orders M [--seed S]
                             write a realistic ERP event data set (NDJSON) to stdout
  credentials <action> ...   manage partner credentials (add, list, remove, reset-password...)
  dlq list|show|redrive ...  read dead letters, send fixed ones again
  push add|list|disable|enable|remove|parked|redeliver|test ...
                             partners' receivers ossn pushes ship notifications to (OSN 2.1.0)
  pusher                     the pusher (sends ship notifications to the push subscriptions)
  replay [--discard|--drop-previous]
                             rebuild the read models into the next version, then switch to it
  status [--probe URL]... [--json]
                             one screen: servers, versions, lag, dead letters, credentials, push

Exit codes: 0 ok, 1 failure, 2 usage (command line or configuration), 3 partly done.
Configuration comes from environment variables; see docs/operations.md (Configuration).`;

const commands: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./commands/start.js')).startCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  projector: async () => (await import('./commands/projector.js')).projectorCommand,
  setup: async () => (await import('./commands/setup.js')).setupCommand,
  publish: async () => (await import('./commands/publish.js')).publishCommand,
  'demo-events': async () => (await import('./commands/demo-events.js')).demoEventsCommand,
  credentials: async () => (await import('./commands/credentials.js')).credentialsCommand,
  dlq: async () => (await import('./commands/dlq.js')).dlqCommand,
  push: async () => (await import('./commands/push.js')).pushCommand,
  pusher: async () => (await import('./commands/pusher.js')).pusherCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
};

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

async function main(argv: string[]): Promise<ExitCode | void> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    process.stdout.write(`ossn ${version()}\n`);
    return ExitCode.ok;
  }
  if (name === 'help' && rest.length > 0) return main([...rest, '--help']);
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help}\n`);
    return ExitCode.ok;
  }
  if (name === undefined) throw new UsageError(help);
  const load = commands[name];
  if (!load) throw new UsageError(`ossn: unknown command "${name}" (see ossn --help)`);
  const command = await load();
  // Before anything is read or started: help never connects to a server.
  if (asksForHelp(rest)) {
    process.stdout.write(`${command.help}\n`);
    return ExitCode.ok;
  }
  return command.run(rest);
}

/** How long a command may take to exit once it has ended (see below). */
const exitGraceMs = 2_000;

const argv = process.argv.slice(2);
try {
  const code = await main(argv);
  if (code !== undefined) process.exitCode = code;
} catch (error) {
  const code = exitCodeFor(error);
  const message = error instanceof Error ? error.message : String(error);
  const command = argv[0] !== undefined && argv[0] in commands ? `ossn ${argv[0]}` : 'ossn';
  // A configuration error, and a usage mistake that names its command, say what is wrong by
  // themselves; every other line is named after its command (a bad value, a refused password too).
  const named = code === ExitCode.usage && (error instanceof ConfigError || /^(ossn|usage:)/.test(message));
  process.stderr.write(named ? `${message}\n` : `${command}: ${message}\n`);
  process.exitCode = code;
} finally {
  // Everything is said: work a command gave up on (a server that did not answer in time, a kafkajs
  // retry, a disconnect waiting for a request that never ends) may not keep the process from
  // exiting. A clean end exits before this (the timer does not hold the process open).
  setTimeout(() => process.exit(), exitGraceMs).unref();
}
