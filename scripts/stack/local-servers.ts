import { ensureStackStarted, stopStack } from './stack.js';
import { StackError } from './stack-error.js';

export interface LocalServers {
  /** The environment for `ossn`: the given one, with the stack's addresses when none were given. */
  env: NodeJS.ProcessEnv;
  /** Stops the servers this call started (none when they were given or running already). */
  release(): Promise<void>;
}

const serverVariables = ['KAFKA_BROKERS', 'MONGODB_URI', 'REDIS_URL'] as const;

/**
 * The servers `ossn start` runs on: those given in `env` (KAFKA_BROKERS and MONGODB_URI, REDIS_URL
 * optional), or else the local stack's, brought up (or found running) here. Aborting `signal`
 * stops what the stack had started so far.
 */
export async function localServers(env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<LocalServers> {
  if (env.KAFKA_BROKERS && env.MONGODB_URI) return { env: { ...env }, release: async () => {} };
  const given = serverVariables.filter((name) => env[name]);
  if (given.length > 0) {
    // The stack's addresses would silently replace the ones given.
    throw new StackError(`${given.join(' and ')} set without ${serverVariables.filter((name) => !env[name] && name !== 'REDIS_URL').join(' and ')}: set KAFKA_BROKERS and MONGODB_URI (and REDIS_URL), or none of them to use the local stack`);
  }
  const { env: addresses, started } = await ensureStackStarted({ env, signal });
  return { env: { ...env, ...addresses }, release: async () => (started.length > 0 ? stopStack({ env, only: started }) : undefined) };
}
