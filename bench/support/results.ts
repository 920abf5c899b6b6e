// Where the benches leave their figures: bench/results/<name>.json, with the machine they ran on.
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMongoClient } from '../../services/adapters/mongodb/connect.js';

export const resultsDir = resolve(fileURLToPath(new URL('.', import.meta.url)), '../results');

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  freeMemoryGiB: number;
  loadAverage: number[];
  os: string;
  node: string;
}

export function machine(): Machine {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    loadAverage: loadavg().map((n) => Math.round(n * 100) / 100),
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
  };
}

/** Writes `figures` with the time and the machine to bench/results/<name>.json; returns the path. */
export function writeResults(name: string, figures: unknown): string {
  mkdirSync(resultsDir, { recursive: true });
  const file = resolve(resultsDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ bench: name, finishedAt: new Date().toISOString(), machine: machine(), figures }, null, 2)}\n`);
  return file;
}

/** The store the figures were measured on, as its server describes itself (version, replica set). */
export async function storeDescription(uri: string): Promise<string> {
  const client = createMongoClient(uri, 'bench-results');
  try {
    const admin = client.db('admin');
    const [build, hello] = await Promise.all([admin.command({ buildInfo: 1 }), admin.command({ hello: 1 })]);
    return `MongoDB ${String(build.version)}${hello.setName ? `, replica set ${String(hello.setName)} of ${(hello.hosts as string[] | undefined)?.length ?? 1}` : ', standalone'}`;
  } finally {
    await client.close();
  }
}
