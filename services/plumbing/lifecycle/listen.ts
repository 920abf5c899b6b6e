// Listening on a configured port. A port that cannot be had is the operator's to fix: the error
// says, in one line, which variable holds it and why, and the process ends instead of running
// without it (a projector consuming with no probes, a query service serving nothing).
import type { FastifyInstance } from 'fastify';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

/** The variables an operator sets a listening address with, e.g. OPS_HOST and OPS_PORT. */
export interface ListenVariables {
  host: string;
  port: string;
}

export class PortUnavailableError extends OssnError {
  override readonly name = 'PortUnavailableError';
  constructor(message: string, cause: unknown) {
    super(ErrorCodes.PORT_UNAVAILABLE, message, { cause });
  }
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'another process listens on it',
  EACCES: 'this process may not listen on it',
  EADDRNOTAVAIL: 'the address is not one of this machine',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/** app.listen, its failure to bind turned into a PortUnavailableError naming the variables. */
export async function listenOn(app: FastifyInstance, host: string, port: number, variables: ListenVariables): Promise<string> {
  try {
    return await app.listen({ host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === undefined ? undefined : REASONS[code];
    if (reason === undefined) throw error;
    throw new PortUnavailableError(`${variables.port}=${port} cannot be listened on at ${variables.host}=${host}: ${reason} (${code})`, error);
  }
}
