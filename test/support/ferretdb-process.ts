import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStackConfig } from '../../scripts/stack/config.js';
import { buildFerretdb, mongoAnswers, type FerretdbVariant } from '../../scripts/stack/ferretdb.js';
import { waitFor } from '../../scripts/stack/wait.js';

/** A FerretDB of a test's own, on a free loopback port over an empty SQLite directory. */
export interface FerretdbProcess {
  uri: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP port was given');
  return address.port;
}

/** Builds the variant if needed (into the stack's cache) and starts it; stop() ends it and removes its data. */
export async function startFerretdb(variant: FerretdbVariant): Promise<FerretdbProcess> {
  const binary = await buildFerretdb(
    { config: readStackConfig(), log: (line) => process.stderr.write(`${line}\n`), signal: new AbortController().signal },
    variant,
  );
  const dataDir = mkdtempSync(join(tmpdir(), `ossn-ferretdb-${variant}-`));
  const address = `127.0.0.1:${await freePort()}`;
  const child = spawn(binary, ['-listen', address, '-sqlite-dir', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2_000);
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const uri = `mongodb://${address}/`;
  try {
    await waitFor(() => mongoAnswers(uri), {
      timeoutMs: 30_000,
      intervalMs: 100,
      failFast: () => (child.exitCode === null ? undefined : `FerretDB (${variant}) exited with code ${child.exitCode}: ${stderr.trim()}`),
      timeoutMessage: `FerretDB (${variant}) did not answer on ${address} within 30 s: ${stderr.trim()}`,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { uri, stop };
}
