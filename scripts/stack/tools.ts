import { spawn } from 'node:child_process';
import { accessSync, constants, createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { shown } from './config.js';
import { withLock } from './lock.js';
import type { ServerContext } from './server.js';
import { StackError } from './stack-error.js';

/** The full path of an executable on the PATH, if any. */
export function which(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** stdout and stderr are appended here, so a failure can be read in full afterwards. */
  logFile: string;
  signal?: AbortSignal;
  /** Called every 20 s with the seconds elapsed: long first-run steps say they are alive. */
  progress?: (seconds: number) => void;
}

export interface RunResult {
  /** The exit code; -1 when a signal ended the tool. */
  code: number;
  /** What the tool wrote to stdout (also in the log file). */
  stdout: string;
}

/** Runs a tool to completion. */
export function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const log = createWriteStream(options.logFile, { flags: 'a' });
    log.write(`\n$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const started = Date.now();
    const ticker = options.progress
      ? setInterval(() => options.progress?.(Math.round((Date.now() - started) / 1000)), 20_000)
      : undefined;
    const onAbort = () => child.kill('SIGTERM');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    const finish = (error: Error | undefined, code: number) => {
      if (finished) return;
      finished = true;
      clearInterval(ticker);
      options.signal?.removeEventListener('abort', onAbort);
      log.end(() => {
        if (options.signal?.aborted) reject(options.signal.reason);
        else if (error) reject(error);
        else resolve({ code, stdout });
      });
    };
    child.once('error', (error) => finish(error, -1));
    child.once('close', (code) => finish(undefined, code ?? -1));
  });
}

/** Lines of a log file that match, to quote the telling one in a one-line error. */
export function grepLog(logFile: string, pattern: RegExp): string[] {
  try {
    return readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => pattern.test(line));
  } catch {
    return [];
  }
}

/** The last `count` lines of a log that say something (stack frames and blank lines left out); none when it cannot be read. */
export function lastLines(logFile: string, count: number): string[] {
  return grepLog(logFile, /^(?!\s+at\s)(?=.*\S)/).slice(-count);
}

export interface AptContext {
  /** Names the server in messages: `<who>: ...`. */
  who: string;
  logFile: string;
  log: (line: string) => void;
}

/**
 * Installs Debian packages with apt-get (first run only; we run as root on our machines). Not
 * abortable: killing dpkg halfway would leave the system's packages broken.
 */
export async function aptInstall(ctx: AptContext, packages: string[]): Promise<void> {
  const aptGet = which('apt-get');
  if (!aptGet || process.getuid?.() !== 0) {
    throw new StackError(`${ctx.who}: ${packages.join(' ')} is missing, and only root can install it here: run apt-get install ${packages.join(' ')}`);
  }
  const options = {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    logFile: ctx.logFile,
    progress: (seconds: number) => ctx.log(`${ctx.who}: still installing ${packages.join(' ')} (${seconds} s)`),
  };
  // Waits for a dpkg lock held by another install instead of failing at once.
  const lock = ['-o', 'DPkg::Lock::Timeout=300'];
  ctx.log(`${ctx.who}: installing ${packages.join(' ')} with apt-get (first run only)`);
  const failed = (step: string) => {
    const why = grepLog(ctx.logFile, /^E: /).at(-1);
    return new StackError(`${ctx.who}: apt-get ${step} failed${why ? ` (${why})` : ''}; see ${shown(ctx.logFile)}`);
  };
  if ((await run(aptGet, [...lock, 'update'], options)).code !== 0) throw failed('update');
  if ((await run(aptGet, [...lock, 'install', '-y', '--no-install-recommends', ...packages], options)).code !== 0) {
    throw failed(`install ${packages.join(' ')}`);
  }
  ctx.log(`${ctx.who}: ${packages.join(' ')} installed`);
}

/**
 * Runs `work` holding the download cache's lock (`<cacheDir>/downloads.lock`): the single stack
 * and the cluster share one cache, and the cluster's members one download, so a check and the
 * fetch it calls for are done by one caller at a time, in this process and across processes
 * (`stack:up` and `stack:up -- --cluster` at once on a fresh clone).
 */
export function withDownloadLock(ctx: ServerContext, work: () => Promise<void>): Promise<void> {
  mkdirSync(ctx.config.cacheDir, { recursive: true });
  return withLock(resolve(ctx.config.cacheDir, 'downloads.lock'), { log: ctx.log, signal: ctx.signal, holder: 'another download' }, work);
}
