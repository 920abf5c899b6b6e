import { readStackConfig, shown } from './config.js';
import { StackError } from './stack-error.js';
import { ensureStack, stackStatus, stopStack } from './stack.js';

const usage = `usage: tsx scripts/stack/cli.ts up|down|status

  up      start Kafka, MongoDB (a one-member replica set) and Redis on loopback (or find them running); writes .stack/env
  down    stop them
  status  say which of them run and answer (exit code 1 unless all answer)

Ports: OSSN_STACK_KAFKA_PORT (19092), OSSN_STACK_KAFKA_CONTROLLER_PORT (19093),
OSSN_STACK_MONGODB_PORT (27018), OSSN_STACK_REDIS_PORT (16379).
Directories: OSSN_STACK_DIR (.stack), OSSN_STACK_CACHE_DIR (.cache).`;

async function up(): Promise<void> {
  // Ctrl-C while starting stops what was started, instead of leaving half a stack behind.
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const since = Date.now();
  try {
    const env = await ensureStack({ signal: interrupt.signal });
    process.stderr.write(`stack: up in ${((Date.now() - since) / 1000).toFixed(1)} s; addresses in ${shown(readStackConfig().envFile)}:\n`);
    for (const [key, value] of Object.entries(env)) process.stdout.write(`${key}=${value}\n`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function status(): Promise<void> {
  const servers = await stackStatus();
  for (const server of servers) {
    const process_ = server.pid ? `pid ${server.pid}` : 'not started by the stack';
    const answer = server.answers ? 'answers' : 'does not answer';
    process.stdout.write(`${server.name.padEnd(9)} ${server.address.padEnd(28)} ${process_.padEnd(24)} ${answer}\n`);
  }
  if (!servers.every((server) => server.answers)) process.exitCode = 1;
}

const commands: Record<string, () => Promise<void>> = { up, down: () => stopStack(), status };

const command = commands[process.argv[2] ?? ''];
if (!command || process.argv.length > 3) {
  process.stderr.write(`${usage}\n`);
  process.exitCode = 2;
} else {
  try {
    await command();
  } catch (error) {
    const message = error instanceof StackError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${message.split('\n').map((line) => `stack: ${line}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}
