// `ossn` as an operator runs it (node bin/ossn.mjs), with no server needed: every server variable
// points at a port of this file that counts the connections it gets and never answers, so a
// command that asks any server anything is seen doing so, and one that waits on it shows its bound.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { ExitCode } from './exit-codes.js';

const commands = ['start', 'serve', 'projector', 'setup', 'publish', 'demo-events', 'credentials', 'dlq', 'push', 'replay', 'status'];

let silent: Server;
let closedPort: number;
const sockets = new Set<Socket>();
let connections = 0;

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));

let env: Record<string, string>;

beforeAll(async () => {
  silent = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const port = await listen(silent);
  // A port nothing listens on: taken, then given back.
  const probe = createServer();
  closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  env = {
    KAFKA_BROKERS: `127.0.0.1:${port}`,
    // The URI asks for a minute's patience: the commands' own bounds must win over it.
    MONGODB_URI: `mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=60000`,
    REDIS_URL: `redis://127.0.0.1:${port}`,
    PORT: '0',
    OPS_PORT: '0',
    OSSN_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
  };
  // Each command once, one at a time, first: on a fresh clone tsx compiles the code on its first
  // load, and eleven processes compiling at once on two cores would time the compiler, not ossn.
  for (const command of commands) await runOssn([command, '--help'], env, { timeoutMs: 60_000 });
}, 300_000);
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

describe('ossn --help, --version and usage mistakes', () => {
  it('ossn --help and ossn --version print on stdout and exit 0', async () => {
    const [help, version] = await Promise.all([runOssn(['--help'], env), runOssn(['--version'], env)]);
    expect(help).toMatchObject({ code: ExitCode.ok, stderr: '' });
    for (const command of commands) expect(help.stdout).toContain(`  ${command}`);
    expect(help.stdout).toContain('Exit codes: 0 ok, 1 failure, 2 usage');
    expect(version).toMatchObject({ code: ExitCode.ok, stdout: 'ossn 0.1.0\n', stderr: '' });
  });

  it('<command> --help prints its help on stdout, exits 0 and asks no server anything (start, serve and projector start nothing)', { timeout: 60_000 }, async () => {
    const before = connections;
    const runs = await Promise.all(commands.map((command) => runOssn([command, '--help'], env, { timeoutMs: 30_000 })));
    runs.forEach((run, i) => {
      expect(run, commands[i]).toMatchObject({ code: ExitCode.ok, stderr: '' });
      expect(run.stdout, commands[i]).toMatch(new RegExp(`^usage: ossn ${commands[i]}\\b`));
    });
    // Help anywhere in the line, before anything else is judged.
    const deep = await runOssn(['credentials', 'add', 'acme', '--bogus', '--help'], env);
    expect(deep).toMatchObject({ code: ExitCode.ok, stderr: '' });
    expect(deep.stdout).toContain('ossn credentials add <id>');
    expect(await runOssn(['help', 'dlq'], env)).toMatchObject({ code: ExitCode.ok, stdout: runs[commands.indexOf('dlq')]?.stdout });
    expect(connections).toBe(before);
  });

  it('an unknown option, action or command is one line on stderr, exit 2, and nothing asked of a server', { timeout: 60_000 }, async () => {
    const before = connections;
    const runs = await Promise.all([...commands.map((command) => runOssn([command, '--bogus'], env, { timeoutMs: 30_000 })), runOssn(['credentials', 'frob'], env), runOssn(['frob'], env)]);
    for (const run of runs) {
      expect(run.code).toBe(ExitCode.usage);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    runs.slice(0, commands.length).forEach((run, i) => {
      expect(run.stderr).toMatch(new RegExp(`^ossn ${commands[i]}( \\w+)?: (unknown option --bogus|unknown action "--bogus"|missing the action)`));
    });
    expect(runs.at(-2)?.stderr).toContain('ossn credentials: unknown action "frob"');
    expect(runs.at(-1)?.stderr).toBe('ossn: unknown command "frob" (see ossn --help)\n');
    expect(connections).toBe(before);
  });

  it('a bad value in the command line is one line that names the command too, exit 2, nothing asked of a server', { timeout: 60_000 }, async () => {
    const before = connections;
    const runs = await Promise.all([
      runOssn(['credentials', 'reset-password', 'acme', '--generate', '--keep-old-for', '100d'], env),
      runOssn(['credentials', 'set-scopes', 'acme', '--scopes', 'bogus'], env),
      runOssn(['credentials', 'add', 'x'.repeat(65), '--scopes', 'osn', '--clients', 'C1', '--generate'], env),
    ]);
    for (const run of runs) expect(run).toMatchObject({ code: ExitCode.usage, stdout: '' });
    expect(runs.map((run) => run.stderr)).toEqual([
      'ossn credentials: --keep-old-for must be a duration like 30m, 12h or 7d (at most 90d); got "100d"\n',
      'ossn credentials: unknown scope bogus; known: order_status, osn\n',
      'ossn credentials: a credential id is 1 to 64 characters\n',
    ]);
    expect(connections).toBe(before);
  });
});

describe('servers that do not answer, and files that are not there', () => {
  it('publish names Kafka, KAFKA_BROKERS and the address in one line, at once when refused and within 10 s when silent', { timeout: 60_000 }, async () => {
    const file = new URL('../../package.json', import.meta.url).pathname;
    const started = Date.now();
    const [refused, silentRun] = await Promise.all([
      runOssn(['publish', file], { ...env, KAFKA_BROKERS: `127.0.0.1:${closedPort}` }, { timeoutMs: 30_000 }),
      runOssn(['publish', file], env, { timeoutMs: 30_000 }),
    ]);
    expect(refused.code).toBe(ExitCode.failure);
    expect(refused.stderr).toMatch(new RegExp(`^publishing to topic erp.order-events.v1 \\(OSSN_TOPIC\\) on 127.0.0.1:${closedPort} \\(KAFKA_BROKERS\\)\\n`));
    expect(refused.stderr).toContain(`ossn publish: Kafka at 127.0.0.1:${closedPort} (KAFKA_BROKERS) did not answer: `);
    expect(refused.stderr).toContain('ECONNREFUSED');
    expect(silentRun.code).toBe(ExitCode.failure);
    expect(silentRun.stderr).toContain(`ossn publish: Kafka at ${env.KAFKA_BROKERS} (KAFKA_BROKERS) did not answer within 10 s\n`);
    expect(Date.now() - started).toBeLessThan(20_000);
    for (const run of [refused, silentRun]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('credentials and dlq name MongoDB or Kafka, the variable and the address (never a password) within 10 s', { timeout: 60_000 }, async () => {
    const started = Date.now();
    const [credentials, dlq] = await Promise.all([
      runOssn(['credentials', 'list'], { ...env, MONGODB_URI: `mongodb://ops:hunter2-secret@127.0.0.1:${closedPort}/` }, { timeoutMs: 30_000 }),
      runOssn(['dlq', 'list'], { ...env, KAFKA_BROKERS: `127.0.0.1:${closedPort}` }, { timeoutMs: 30_000 }),
    ]);
    expect(credentials).toMatchObject({ code: ExitCode.failure, stdout: '' });
    expect(credentials.stderr).toMatch(new RegExp(`^ossn credentials: MongoDB at 127.0.0.1:${closedPort} \\(MONGODB_URI\\) did not answer: .*ECONNREFUSED.*\\n$`));
    expect(credentials.stderr).not.toContain('hunter2-secret');
    expect(dlq).toMatchObject({ code: ExitCode.failure, stdout: '' });
    expect(dlq.stderr).toMatch(new RegExp(`^ossn dlq: Kafka at 127.0.0.1:${closedPort} \\(KAFKA_BROKERS\\) did not answer: .*ECONNREFUSED.*\\n$`));
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('setup names Kafka, KAFKA_BROKERS and the address in one line, without the Kafka client\'s own lines', { timeout: 90_000 }, async () => {
    const run = await runOssn(['setup'], { ...env, KAFKA_BROKERS: `127.0.0.1:${closedPort}` }, { timeoutMs: 60_000 });
    expect(run).toMatchObject({ code: ExitCode.failure, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^ossn setup: Kafka at 127.0.0.1:${closedPort} \\(KAFKA_BROKERS\\) did not answer: .*ECONNREFUSED.*\\n$`));
  });

  it('replay names Kafka, KAFKA_BROKERS and the address in one line when Kafka is away, within 10 s', { timeout: 90_000 }, async () => {
    // MongoDB answers (the real one), Kafka does not: the rebuild never starts.
    const names = uniqueNames('replay-kafka-away');
    const started = Date.now();
    const run = await runOssn(['replay'], { ...env, MONGODB_URI: testEnvironment().mongodbUri, MONGODB_DATABASE: names.database, OSSN_TOPIC: names.topic, KAFKA_BROKERS: `127.0.0.1:${closedPort}` }, { timeoutMs: 60_000 });
    expect(run).toMatchObject({ code: ExitCode.failure, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^ossn replay: Kafka at 127.0.0.1:${closedPort} \\(KAFKA_BROKERS\\) did not answer: .*ECONNREFUSED.*\\n$`));
    expect(Date.now() - started).toBeLessThan(12_000);
  });

  it('a missing input file is one line, no stack trace, exit 1, before any server is asked', async () => {
    const before = connections;
    for (const args of [['publish', '/nowhere/events.ndjson'], ['publish', '--dry-run', '/nowhere/events.ndjson']]) {
      const run = await runOssn(args, env);
      expect(run).toMatchObject({ code: ExitCode.failure, stdout: '', stderr: 'ossn publish: cannot read /nowhere/events.ndjson: no such file\n' });
    }
    expect(connections).toBe(before);
  });

  it('status with no server answering still prints its screen within its 5 s and exits 1', { timeout: 60_000 }, async () => {
    const started = Date.now();
    const run = await runOssn(['status'], env, { timeoutMs: 30_000 });
    const took = Date.now() - started;
    expect(run.code).toBe(ExitCode.failure);
    expect(run.stdout).toMatch(new RegExp(`Kafka ${env.KAFKA_BROKERS} \\(KAFKA_BROKERS\\) +DOES NOT ANSWER`));
    expect(run.stdout).toMatch(/MongoDB 127\.0\.0\.1:\d+ \(MONGODB_URI, database ossn\) +DOES NOT ANSWER/);
    expect(run.stdout).toMatch(/Redis 127\.0\.0\.1:\d+ \(REDIS_URL\) +DOES NOT ANSWER/);
    // 5 s for every part at once, up to 2 s to exit, and the start of node and tsx.
    expect(took).toBeLessThan(10_000);
  });
});
