import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { readStackConfig, shown, type StackConfig, type StackPaths } from './config.js';
import { isAbort, StackError } from './stack-error.js';
import { kafkaServer, stackKafkaNode } from './kafka.js';
import { mongodbServer, stackMongodMember } from './mongodb.js';
import { withLock } from './lock.js';
import { isPortFree, portHolder } from './tcp-ports.js';
import { groupMembers, groupRssBytes, isRunning, spawnDetached, stopGroup } from './process.js';
import { redisServer, stackRedisMember } from './redis.js';
import type { Server, ServerContext, ServerName } from './server.js';
import { grepLog, lastLines } from './tools.js';
import { readState, writeState, type ServerRecord, type StackState } from './state.js';
import { waitFor } from './wait.js';

/** The addresses of the running stack, named as the services read them from the environment. */
export interface StackEnv {
  KAFKA_BROKERS: string;
  MONGODB_URI: string;
  REDIS_URL: string;
}

export interface StackOptions {
  /** Progress lines for a person; by default written to stderr as `stack: <line>`. */
  log?: (line: string) => void;
  /** Aborting stops what this call has started and rejects. */
  signal?: AbortSignal;
  /** Where OSSN_STACK_* settings are read from; process.env by default. */
  env?: NodeJS.ProcessEnv;
}

export interface ServerStatus {
  name: ServerName;
  address: string;
  /** The recorded process, when it still runs. */
  pid?: number;
  answers: boolean;
}

/** Servers started, found and stopped together, with one lock, state file and env file: the single stack or the cluster. */
export interface Topology {
  paths: StackPaths;
  servers: Server[];
  /** Their addresses, as written to the env file. */
  env: StackEnv;
  /**
   * Run once every server answers, on every start: brings them together to the state clients
   * need (the cluster's replica set initiated, all brokers registered). Idempotent.
   */
  settle?(ctx: ServerContext): Promise<void>;
}

const defaultLog = (line: string) => process.stderr.write(`stack: ${line}\n`);

/** Runs `fn` holding the lock of the stack at `paths`: what starts, stops, kills or reads its servers does, one at a time. */
export function withStackLock<T>(paths: StackPaths, options: Pick<StackOptions, 'log' | 'signal'>, fn: () => Promise<T>): Promise<T> {
  mkdirSync(paths.stackDir, { recursive: true });
  return withLock(paths.lockFile, { log: options.log ?? defaultLog, signal: options.signal }, fn);
}

/** The single stack: one Kafka node, one mongod as a one-member replica set, one Redis. */
function singleStack(config: StackConfig): Topology {
  const servers = [kafkaServer(config, stackKafkaNode(config)), mongodbServer(config, stackMongodMember(config)), redisServer(stackRedisMember(config))];
  const [kafka, mongodb, redis] = servers as [Server, Server, Server];
  return { paths: config, servers, env: { KAFKA_BROKERS: kafka.address, MONGODB_URI: mongodb.address, REDIS_URL: redis.address } };
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** A running server may be busy for a moment (a GC pause, say): ask a few times before giving up on it. */
async function answersSoon(server: Server): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await server.answers()) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

/** Stops a recorded server's whole process group, unless its pid now belongs to another process. */
async function stopRecorded(server: Server, record: ServerRecord): Promise<boolean> {
  const pidReused = existsSync(`/proc/${record.pid}`) && !isRunning(record);
  if (pidReused || groupMembers(record.pid).length === 0) return false;
  const left = await stopGroup(record.pid, server.stopGraceMs);
  if (left.length > 0) throw new StackError(`${server.name}: pids ${left.join(', ')} would not stop even after SIGKILL`);
  return true;
}

interface Tracker {
  started(name: ServerName, record: ServerRecord): void;
  forgotten(name: ServerName): void;
}

/** Keeps the state file in step with what is started and forgotten; what is started is also put in `startedNow`. */
function stateTracker(stateFile: string, state: StackState, startedNow: Map<ServerName, ServerRecord>): Tracker {
  return {
    started(name, record) {
      startedNow.set(name, record);
      state[name] = record;
      writeState(stateFile, state);
    },
    forgotten(name) {
      delete state[name];
      writeState(stateFile, state);
    },
  };
}

/** Leaves one server running and answering: keeps a healthy one, (re)starts a dead or silent one. */
async function ensureServer(server: Server, ctx: ServerContext, existing: ServerRecord | undefined, tracker: Tracker) {
  const { config, log, signal } = ctx;
  const { name } = server;
  const ports = server.ports.map((p) => p.port);
  const logFile = resolve(config.logsDir, `${name}.log`);

  if (existing && isRunning(existing)) {
    const samePorts = existing.ports.join() === ports.join();
    if (samePorts && (await answersSoon(server))) {
      await server.settle?.(ctx);
      return;
    }
    log(
      samePorts
        ? `${name}: pid ${existing.pid} runs but does not answer; restarting it`
        : `${name}: runs on port ${existing.ports.join('/')} but ${ports.join('/')} is configured; restarting it`,
    );
    await stopRecorded(server, existing);
    tracker.forgotten(name);
  } else if (existing) {
    log(`${name}: pid ${existing.pid} is no longer running; starting it again (its log is kept as ${shown(logFile.replace(/\.log$/, '.previous.log'))})`);
    tracker.forgotten(name);
  }

  await server.prepare(ctx);
  for (const { port, variable } of server.ports) {
    if (!(await isPortFree(port))) {
      throw new StackError(
        `${name}: port ${port} is taken by ${portHolder(port) ?? 'another process'}; stop that or choose another port with ${variable}`,
      );
    }
  }
  const spec = await server.launch(ctx);
  signal.throwIfAborted();

  const since = Date.now();
  const child = await spawnDetached(spec, logFile);
  tracker.started(name, { pid: child.pid, startTime: child.startTime, ports });
  await waitFor(() => server.answers(), {
    timeoutMs: server.startTimeoutMs,
    intervalMs: 250,
    signal,
    failFast: () => {
      if (!child.exit && isRunning(child)) return undefined;
      const how = child.exit?.signal ? `by signal ${child.exit.signal}` : `with code ${child.exit?.code ?? '?'}`;
      const why = grepLog(logFile, /exception|error|fatal|panic|can't|cannot/i).at(-1)?.trim().slice(0, 200);
      return `${name} exited ${how} while starting${why ? ` (${why})` : ''}; see ${shown(logFile)}`;
    },
    // The log's last lines and the machine's load in the message itself: where the log is gone
    // with its machine (CI), the error is all that tells why.
    timeoutMessage: () =>
      [
        `${name} did not answer on ${server.address} within ${server.startTimeoutMs / 1000} s (load average ${loadavg()[0]!.toFixed(1)} over the last minute); see ${shown(logFile)}, which ends:`,
        ...lastLines(logFile, 12).map((line) => `  ${line.slice(0, 300)}`),
      ].join('\n'),
  });
  await server.settle?.(ctx);
  log(`${name}: ready on ${server.address} (pid ${child.pid}, ${seconds(since)})`);
}

/**
 * Starts the local Kafka, MongoDB and Redis (in parallel), or finds them running, and returns
 * their addresses, also written to `.stack/env`. Servers that already run and answer are left as
 * they are; a dead or silent one is restarted. On failure, whatever this call started is stopped
 * again and the error says, for each failure, what went wrong and where its log is (a server that
 * did not answer in time: with its log's last lines).
 */
export async function ensureStack(options: StackOptions = {}): Promise<StackEnv> {
  return (await ensureStackStarted(options)).env;
}

/** ensureStack, telling also which servers this call started (the others were running already). */
export async function ensureStackStarted(options: StackOptions = {}): Promise<{ env: StackEnv; started: ServerName[] }> {
  return ensureServers(singleStack(readStackConfig(options.env)), options);
}

/** What ensureStackStarted does, for any topology. */
export async function ensureServers(topology: Topology, options: StackOptions = {}): Promise<{ env: StackEnv; started: ServerName[] }> {
  const config = topology.paths;
  const log = options.log ?? defaultLog;
  mkdirSync(config.logsDir, { recursive: true });

  return withStackLock(config, { log, signal: options.signal }, async () => {
    const state: StackState = readState(config.stateFile);
    const startedNow = new Map<ServerName, ServerRecord>();
    const tracker = stateTracker(config.stateFile, state, startedNow);
    // The first failure cancels the other servers' work: no point waiting minutes for a build.
    const cancel = new AbortController();
    const onAbort = () => cancel.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    const { servers } = topology;
    const ctx: ServerContext = { config, log, signal: cancel.signal };
    const results = await Promise.allSettled(
      servers.map((server) =>
        ensureServer(server, ctx, state[server.name], tracker).catch((error: unknown) => {
          cancel.abort(error);
          throw error;
        }),
      ),
    );
    const failures = [...new Set(results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : [])))];
    if (failures.length === 0 && topology.settle) await topology.settle(ctx).catch((error: unknown) => failures.push(error));
    options.signal?.removeEventListener('abort', onAbort);

    if (failures.length > 0) {
      await Promise.all(
        servers
          .filter((server) => startedNow.has(server.name))
          .map(async (server) => {
            if (await stopRecorded(server, startedNow.get(server.name) as ServerRecord)) {
              log(`${server.name}: stopped again, as the start failed`);
            }
            tracker.forgotten(server.name);
          }),
      );
      if (options.signal?.aborted) throw new StackError('interrupted; stopped what this run had started');
      const messages = failures.filter((error) => !isAbort(error)).map((error) => (error instanceof Error ? error.message : String(error)));
      throw new StackError(messages.join('\n'));
    }

    const { env } = topology;
    const text = Object.entries(env).map(([key, value]) => `${key}=${value}\n`).join('');
    if (!existsSync(config.envFile) || readFileSync(config.envFile, 'utf8') !== text) writeFileSync(config.envFile, text);
    return { env, started: [...startedNow.keys()] };
  });
}

/**
 * Stops every recorded server, or only those named in `only` (SIGTERM, then SIGKILL), checks that
 * none remains, and forgets them.
 */
export async function stopStack(options: StackOptions & { only?: ServerName[] } = {}): Promise<void> {
  return stopServers(singleStack(readStackConfig(options.env)), options);
}

/** What stopStack does, for any topology. */
export async function stopServers(topology: Topology, options: StackOptions & { only?: ServerName[] } = {}): Promise<void> {
  const config = topology.paths;
  const log = options.log ?? defaultLog;
  if (!existsSync(config.stackDir)) {
    log('nothing was started by the stack');
    return;
  }
  await withStackLock(config, { log, signal: options.signal }, async () => {
    const state = readState(config.stateFile);
    if (Object.keys(state).length === 0) log('nothing was started by the stack');
    await Promise.all(
      topology.servers.map(async (server) => {
        const record = state[server.name];
        if (!record || (options.only && !options.only.includes(server.name))) return;
        const stopped = await stopRecorded(server, record);
        log(stopped ? `${server.name}: stopped (pid ${record.pid})` : `${server.name}: was not running`);
        delete state[server.name];
        writeState(config.stateFile, state);
      }),
    );
    // The addresses go with the last recorded server.
    if (Object.keys(state).length === 0) rmSync(config.envFile, { force: true });
  });
}

/** Each server, its recorded process if that still runs, and whether it answers. */
export async function stackStatus(options: Pick<StackOptions, 'env'> = {}): Promise<ServerStatus[]> {
  return serversStatus(singleStack(readStackConfig(options.env)));
}

/** The recorded process of each server of the topology, when it still runs. */
function runningPids(topology: Topology): (number | undefined)[] {
  const state = readState(topology.paths.stateFile);
  return topology.servers.map(({ name }) => {
    const record = state[name];
    return record && isRunning(record) ? record.pid : undefined;
  });
}

/** What stackStatus does, for any topology. */
export async function serversStatus(topology: Topology): Promise<ServerStatus[]> {
  const pids = runningPids(topology);
  return Promise.all(topology.servers.map(async (server, i) => ({ name: server.name, address: server.address, pid: pids[i], answers: await server.answers() })));
}

/** Resident memory (VmRSS) of each server's process group now, 0 for one that does not run. */
export function serversMemory(topology: Topology): { name: ServerName; rssBytes: number }[] {
  const pids = runningPids(topology);
  return topology.servers.map(({ name }, i) => {
    const pid = pids[i];
    return { name, rssBytes: pid === undefined ? 0 : groupRssBytes(pid) };
  });
}

/**
 * Leaves one server of a topology running and answering, under the topology's lock: a dead one
 * (killed on purpose, say) is started again on its data and waited for, settle included.
 */
export async function ensureOneServer(topology: Topology, name: ServerName, options: StackOptions = {}): Promise<void> {
  const config = topology.paths;
  const log = options.log ?? defaultLog;
  const server = topology.servers.find((candidate) => candidate.name === name);
  if (!server) throw new StackError(`no server named ${name}; there are ${topology.servers.map((s) => s.name).join(', ')}`);
  mkdirSync(config.logsDir, { recursive: true });
  await withStackLock(config, { log, signal: options.signal }, async () => {
    const state = readState(config.stateFile);
    const tracker = stateTracker(config.stateFile, state, new Map());
    await ensureServer(server, { config, log, signal: options.signal ?? new AbortController().signal }, state[name], tracker);
  });
}
