// Which environment variables a configuration reader validates, read off the reader itself, so
// that checks of a deployment's environment (docker-compose.yml) need no second list to keep.
import { ConfigError } from '../../services/config/env.js';

type Env = Record<string, string | undefined>;

/**
 * The names `read` asks the environment for. The reader runs once on an empty environment that
 * records every name asked; the problems it reports there (required values missing) are expected.
 * A variable read only when another is set would be missed: ours read every name unconditionally.
 */
export function variablesReadBy(read: (env: Env) => unknown): string[] {
  const names = new Set<string>();
  const recording = new Proxy<Env>(
    {},
    {
      get: (_target, name) => {
        if (typeof name === 'string') names.add(name);
        return undefined;
      },
    },
  );
  try {
    read(recording);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  return [...names].sort();
}
