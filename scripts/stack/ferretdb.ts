import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { shown, type StackConfig } from './config.js';
import { StackError } from './errors.js';
import type { Server, ServerContext } from './server.js';
import { ferretdbAddedFiles, ferretdbPatchesFile, preparePatchedFerretdb, prepareUpstreamFerretdb } from './ferretdb-patches.js';
import { grepLog, run, which } from './tools.js';

/** True when the server answers a MongoDB `ping`. */
export async function mongoAnswers(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
  try {
    const reply = await client.db('admin').command({ ping: 1 });
    return reply.ok === 1;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

function mtime(path: string): number {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

/** Which FerretDB to build: ours, patched (the local stack's), or as released (to compare with in tests). */
export type FerretdbVariant = 'patched' | 'upstream';

/** The binary of a variant, below the stack's cache. */
export function ferretdbBinary(config: StackConfig, variant: FerretdbVariant): string {
  return resolve(config.cacheDir, variant === 'patched' ? 'bin/ferretdb' : 'bin/ferretdb-upstream');
}

/** Builds our FerretDB command with Go when the binary is missing or older than its sources. */
export async function buildFerretdb(ctx: ServerContext, variant: FerretdbVariant): Promise<string> {
  const { config } = ctx;
  const moduleDir = resolve(config.repoRoot, 'scripts/stack/ferretdb');
  const binary = ferretdbBinary(config, variant);
  const ours = ['main.go', 'go.mod', 'go.sum', ...(variant === 'patched' ? ferretdbAddedFiles.map((file) => file.from) : [])];
  const sources = [...ours.map((file) => resolve(moduleDir, file)), ...(variant === 'patched' ? [ferretdbPatchesFile] : [])].map(mtime);
  if (mtime(binary) >= Math.max(...sources)) return binary;

  const go = which('go');
  if (!go) throw new StackError('ferretdb: go is not on the PATH: FerretDB is built from source with Go 1.24 or newer');
  mkdirSync(config.logsDir, { recursive: true });
  const logFile = resolve(config.logsDir, variant === 'patched' ? 'go-build.log' : 'go-build-upstream.log');
  const goCache = resolve(config.cacheDir, 'go');
  mkdirSync(resolve(config.cacheDir, 'bin'), { recursive: true });
  const fresh = !existsSync(binary);
  const what = variant === 'patched' ? 'FerretDB 1.24.2' : 'FerretDB 1.24.2 as released (no patches)';
  ctx.log(
    fresh
      ? `ferretdb: building ${what} with Go into ${shown(binary)} (first run only: downloads modules and compiles, a few minutes)`
      : `ferretdb: rebuilding ${shown(binary)} (its sources changed)`,
  );
  const started = Date.now();
  const goOptions = {
    cwd: moduleDir,
    env: {
      ...process.env,
      GOMODCACHE: resolve(goCache, 'mod'),
      GOCACHE: resolve(goCache, 'build'),
      // The go.mod's toolchain must not be downloaded: only the module proxy is reachable.
      GOTOOLCHAIN: 'local',
      CGO_ENABLED: '0',
      // No VCS stamping: it needs git and a clean view of the work tree, and the binary does not use it.
      GOFLAGS: '-mod=mod -buildvcs=false',
    },
    logFile,
    signal: ctx.signal,
    progress: (seconds: number) => ctx.log(`ferretdb: still building (${seconds} s)`),
  };
  const failed = (step: string, code: number) => {
    const lines = grepLog(logFile, /\S/).filter((line) => !line.startsWith('$ ') && !line.startsWith('go: downloading'));
    const reason = lines.at(-1)?.trim().slice(0, 240) ?? `exit code ${code}`;
    return new StackError(`ferretdb: ${step} failed: ${reason}; full output in ${shown(logFile)}`);
  };

  let goMod: string;
  if (variant === 'patched') {
    const download = await run(go, ['mod', 'download', '-json', 'github.com/FerretDB/FerretDB'], goOptions);
    if (download.code !== 0) throw failed('go mod download', download.code);
    const { Dir: ferretdbSources } = JSON.parse(download.stdout) as { Dir: string };
    goMod = preparePatchedFerretdb(ferretdbSources, moduleDir, resolve(config.cacheDir, 'ferretdb-patched'));
  } else {
    goMod = prepareUpstreamFerretdb(moduleDir, resolve(config.cacheDir, 'ferretdb-upstream'));
  }

  // Built beside the target and renamed, so an interrupted build never leaves a binary that looks current.
  const partial = `${binary}.partial`;
  const { code } = await run(go, ['build', `-modfile=${goMod}`, '-o', partial, '.'], goOptions);
  if (code !== 0) throw failed('go build', code);
  renameSync(partial, binary);
  ctx.log(`ferretdb: built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

export function ferretdbServer(config: StackConfig): Server {
  const binary = ferretdbBinary(config, 'patched');
  const address = `127.0.0.1:${config.ports.ferretdb}`;
  const uri = `mongodb://${address}/`;

  return {
    name: 'ferretdb',
    ports: [{ port: config.ports.ferretdb, variable: 'OSSN_STACK_FERRETDB_PORT' }],
    address: uri,
    startTimeoutMs: 30_000,
    stopGraceMs: 10_000,
    prepare: async (ctx) => {
      await buildFerretdb(ctx, 'patched');
    },
    async launch() {
      return {
        command: binary,
        args: ['-listen', address, '-sqlite-dir', resolve(config.stackDir, 'ferretdb/data')],
        cwd: config.stackDir,
      };
    },
    answers: () => mongoAnswers(uri),
  };
}
