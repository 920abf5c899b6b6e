import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProjectorConfig } from '../../services/config/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const entry = fileURLToPath(new URL('../../bin/ossn.mjs', import.meta.url));
const npmStartScript = fileURLToPath(new URL('../../scripts/stack/start.ts', import.meta.url));
// By its full address: the process may run in another directory, where 'tsx' would not resolve.
const tsxLoader = import.meta.resolve('tsx');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Given `kill`: whether it was killed as asked, before it ended by itself. */
  killed?: boolean;
}

export interface CliOptions {
  /** Written to its stdin, which is closed right after. */
  input?: string;
  /** It is killed, and the run fails, after this long. */
  timeoutMs?: number;
  /** Killed with SIGKILL `afterMs` after its output (stdout and stderr) first satisfies `when`: the run then ends with `killed`. */
  kill?: { when: (output: string) => boolean; afterMs?: number };
}

/** Runs `ossn <args>` as an operator does (node bin/ossn.mjs), with `env` over this process's environment. */
export function runOssn(args: string[], env: Record<string, string>, { input = '', timeoutMs = 120_000, kill }: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    let killing: NodeJS.Timeout | undefined;
    const watch = () => {
      if (!kill || killing || !kill.when(stdout + stderr)) return;
      killing = setTimeout(() => {
        killed = child.exitCode === null && child.kill('SIGKILL');
      }, kill.afterMs ?? 0);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      watch();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      watch();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ossn ${args.join(' ')} did not end within ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(killing);
      resolve({ code, stdout, stderr, ...(kill ? { killed } : {}) });
    });
    child.stdin.on('error', () => {}); // the command may exit without reading stdin
    child.stdin.end(input);
  });
}

/** The variables that point `ossn` at a test's servers, database and topic, quietly. */
export function ossnEnv(config: ProjectorConfig): Record<string, string> {
  return {
    KAFKA_BROKERS: config.kafkaBrokers.join(','),
    MONGODB_URI: config.store.mongodbUri,
    MONGODB_DATABASE: config.store.database,
    OSSN_TOPIC: config.topic,
    LOG_LEVEL: 'warn',
  };
}

/** An `ossn` command left running (startOssn). */
export interface OssnProcess {
  child: ChildProcess;
  /** Its stdout and stderr so far, as they came. */
  output: () => string;
  /** How it ended: its exit code, or the signal that ended it. */
  exit: Promise<number | NodeJS.Signals | null>;
}

export interface StartOssnOptions {
  /** Its working directory; the repository's by default. */
  cwd?: string;
  /**
   * As a container runs it: PID 1 of a PID namespace of its own, where a signal without a handler
   * is ignored (util-linux unshare; the tests run as root). `child` is then unshare.
   */
  asInit?: boolean;
  /** Its stderr is written to this process's stderr as well (warnings show in the test's output). */
  echoStderr?: boolean;
}

/** Starts `ossn <args>` as an operator does (node bin/ossn.mjs), with `env` over this process's environment, and leaves it running. */
export function startOssn(args: string[], env: Record<string, string>, options: StartOssnOptions = {}): OssnProcess {
  return startNode([entry, ...args], env, options);
}

/** Starts `npm start`'s script (scripts/stack/start.ts, through tsx as npm runs it) and leaves it running. */
export function startNpmStart(env: Record<string, string>, options: StartOssnOptions = {}): OssnProcess {
  return startNode(['--import', tsxLoader, npmStartScript], env, options);
}

function startNode(args: string[], env: Record<string, string>, { cwd = root, asInit = false, echoStderr = false }: StartOssnOptions): OssnProcess {
  const command = asInit ? ['unshare', '--pid', '--fork', '--kill-child', process.execPath] : [process.execPath];
  const child = spawn(command[0]!, [...command.slice(1), ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    if (echoStderr) process.stderr.write(chunk);
  });
  // A process that could not be started (unshare missing, say) ends here with its error, not as an unhandled 'error' event.
  const exit = new Promise<number | NodeJS.Signals | null>((resolve, reject) => {
    child.on('exit', (code, signal) => resolve(signal ?? code));
    child.on('error', reject);
  });
  exit.catch(() => undefined);
  return { child, output: () => text, exit };
}

/** Where an `ossn projector` started by startOssnProjector works. */
export interface ProjectorTarget {
  kafkaBrokers: string[];
  mongodbUri: string;
  database: string;
  topic: string;
  consumerGroup: string;
  /** OSSN_TOPIC_PARTITIONS, when the projector creates the topic; its default otherwise. */
  topicPartitions?: number;
  /** OSSN_CONSUMER_SESSION_TIMEOUT_MS: the group hands a silent projector's partitions on after this. */
  consumerSessionTimeoutMs?: number;
  /** OSSN_FETCH_MAX_BYTES_PER_PARTITION: batches of at most about this many bytes. */
  fetchMaxBytesPerPartition?: number;
  /** LOG_LEVEL; info by default (the tests read its log lines). */
  logLevel?: 'info' | 'warn';
}

/** `ossn projector` on a test's servers, database, topic and group, its operators' port on a free port. */
export function startOssnProjector(target: ProjectorTarget, options: Omit<StartOssnOptions, 'cwd'> = {}): OssnProcess {
  const { topicPartitions, consumerSessionTimeoutMs, fetchMaxBytesPerPartition } = target;
  return startOssn(
    ['projector'],
    {
      KAFKA_BROKERS: target.kafkaBrokers.join(','),
      MONGODB_URI: target.mongodbUri,
      MONGODB_DATABASE: target.database,
      OSSN_TOPIC: target.topic,
      OSSN_CONSUMER_GROUP: target.consumerGroup,
      ...(topicPartitions === undefined ? {} : { OSSN_TOPIC_PARTITIONS: String(topicPartitions) }),
      ...(consumerSessionTimeoutMs === undefined ? {} : { OSSN_CONSUMER_SESSION_TIMEOUT_MS: String(consumerSessionTimeoutMs) }),
      ...(fetchMaxBytesPerPartition === undefined ? {} : { OSSN_FETCH_MAX_BYTES_PER_PARTITION: String(fetchMaxBytesPerPartition) }),
      OSSN_METRICS_PORT: '0',
      LOG_LEVEL: target.logLevel ?? 'info',
    },
    options,
  );
}
