import { ensureStack, stackStatus, stopStack } from './stack.js';

export interface LocalServers {
  /** The environment for `ossn`: the given one, with the stack's addresses when none were given. */
  env: NodeJS.ProcessEnv;
  /** Stops the stack if this call started it; nothing otherwise. */
  release(): Promise<void>;
}

/**
 * The servers `ossn start` runs on: those given in `env` (KAFKA_BROKERS and MONGODB_URI), or else
 * the local stack's, brought up (or found running) here.
 */
export async function localServers(env: NodeJS.ProcessEnv = process.env): Promise<LocalServers> {
  if (env.KAFKA_BROKERS && env.MONGODB_URI) return { env: { ...env }, release: async () => {} };
  const startedHere = !(await stackStatus({ env })).every((server) => server.answers);
  const addresses = await ensureStack({ env });
  return { env: { ...env, ...addresses }, release: async () => (startedHere ? stopStack({ env }) : undefined) };
}
