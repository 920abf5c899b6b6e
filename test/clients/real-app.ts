// The real query app (services/query/app.ts) listening on a loopback port, with publicBaseUrl
// equal to the URL it listens on: the WSDLs' soap:address is where clients really reach it, so no
// client needs its endpoint overridden. The port is picked free first, then the app is built for
// it (the WSDLs are derived when the SOAP plugin registers, before listen).
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDependencies } from '../../services/query/app.js';
import { freePort } from '../support/free-port.js';

export interface RealApp {
  app: FastifyInstance;
  /** e.g. http://127.0.0.1:41234, also the app's publicBaseUrl. */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Loopback by default. */
  host?: string;
  /** Runs on the built app before it listens, e.g. to add hooks. */
  configure?: (app: FastifyInstance) => void | Promise<void>;
}

/** Builds and starts the app on a free port of `host`; retries when another process takes the port first. */
export async function startRealApp(deps: Omit<AppDependencies, 'publicBaseUrl'>, { host = '127.0.0.1', configure }: StartOptions = {}): Promise<RealApp> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort(host);
    const url = `http://${host}:${port}`;
    const app = await buildApp({ ...deps, publicBaseUrl: url });
    await configure?.(app);
    try {
      await app.listen({ host, port });
      return { app, url, close: () => app.close() };
    } catch (error) {
      await app.close();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw error;
    }
  }
}
