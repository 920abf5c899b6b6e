import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMongoClient } from '../../services/adapters/mongodb/connect.js';
import { afterAll, describe, expect, it } from 'vitest';
import { readStackConfig } from './config.js';
import { mongodbServer, replicaSetName, stackMongodMember } from './mongodb.js';
import { isRunning, spawnDetached, stopGroup, type Started } from './process.js';
import type { ServerContext } from './server.js';
import { waitFor } from './wait.js';
import { freePort } from '../../test/support/free-port.js';

// The local stack's MongoDB as `npm start` and the tests get it: a mongod of this test's own (the
// cached download, a fresh data directory, a free port), started the way the stack starts it.

const stackDirs: string[] = [];
const started: Started[] = [];

afterAll(async () => {
  for (const process of started) if (isRunning(process)) await stopGroup(process.pid, 30_000);
  for (const dir of stackDirs) rmSync(dir, { recursive: true, force: true });
});

/** A stack directory (data, logs) of the test's own; the download cache is the project's. */
function freshStackDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ossn-mongodb-stack-'));
  stackDirs.push(dir);
  return dir;
}

/** Prepares (download checked by its hashes, or the cached binary checked again), launches and settles the stack's mongod on `port`. */
async function startStackMongod(stackDir: string, port: number): Promise<{ uri: string; lines: string[] }> {
  const config = readStackConfig({ ...process.env, OSSN_STACK_DIR: stackDir, OSSN_STACK_MONGODB_PORT: String(port) });
  const lines: string[] = [];
  const ctx: ServerContext = { config, log: (line) => lines.push(line), signal: new AbortController().signal };
  const server = mongodbServer(config, stackMongodMember(config));
  await server.prepare(ctx);
  const child = await spawnDetached(await server.launch(ctx), join(stackDir, `mongod-${port}.log`));
  started.push(child);
  await waitFor(() => server.answers(), { timeoutMs: server.startTimeoutMs, timeoutMessage: `mongod did not answer on ${port}` });
  await server.settle?.(ctx);
  return { uri: server.address, lines };
}

describe("the local stack's MongoDB", () => {
  it('is a one-member replica set on loopback, without message compression, that runs transactions', async () => {
    const { uri, lines } = await startStackMongod(freshStackDir(), await freePort());
    expect(lines.some((line) => line.includes(`initiating the one-member replica set ${replicaSetName}`))).toBe(true);
    const client = createMongoClient(uri, 'stack-mongodb-test');
    try {
      const admin = client.db('admin');
      const hello = await admin.command({ hello: 1 });
      expect(hello).toMatchObject({ setName: replicaSetName, isWritablePrimary: true, hosts: [expect.stringMatching(/^127\.0\.0\.1:\d+$/)] });
      expect((await admin.command({ buildInfo: 1 })).version).toBe('6.0.5');
      const { parsed } = await admin.command({ getCmdLineOpts: 1 });
      expect(parsed.net).toMatchObject({ bindIp: '127.0.0.1', compression: { compressors: 'disabled' } });
      // Sized for a 2-core, 24 GiB machine, as docs/development.md says: 2 GiB of cache, a 2 GiB oplog.
      expect(parsed.storage?.wiredTiger?.engineConfig?.cacheSizeGB).toBe(2);
      expect(parsed.replication?.oplogSizeMB).toBe(2048);

      // A transaction commits both writes or neither: what a replica set gives and a standalone refuses.
      const collection = client.db('stack_check').collection<{ _id: string }>('pairs');
      await client.withSession((session) =>
        session.withTransaction(async () => {
          await collection.insertOne({ _id: 'a' }, { session });
          await collection.insertOne({ _id: 'b' }, { session });
        }),
      );
      expect(await collection.countDocuments()).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('comes back as primary on a new port, its member renamed, with its data', async () => {
    const stackDir = freshStackDir();
    const { uri } = await startStackMongod(stackDir, await freePort());
    const before = createMongoClient(uri, 'stack-mongodb-test');
    await before.db('stack_check').collection('kept').insertOne({ note: 'written before the move' });
    await before.close();
    const previous = started.pop() as Started;
    await stopGroup(previous.pid, 30_000);

    const moved = await startStackMongod(stackDir, await freePort());
    expect(moved.lines.some((line) => line.includes('renaming its member'))).toBe(true);
    const after = createMongoClient(moved.uri, 'stack-mongodb-test');
    try {
      expect((await after.db('admin').command({ hello: 1 })).isWritablePrimary).toBe(true);
      expect(await after.db('stack_check').collection('kept').countDocuments()).toBe(1);
    } finally {
      await after.close();
    }
  });
});
