// `ossn serve`, `ossn projector` or `ossn pusher` started as a child process for a bench, ready when it says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The long-running commands a bench starts. */
export type OssnCommand = 'serve' | 'projector' | 'pusher';

export interface OssnProcessOptions {
  /** The bin/ossn.mjs to run (ossnEntry). */
  entry: string;
  command: OssnCommand;
  env: Record<string, string>;
  /** The log line that gives its URLs (`url`, and `opsUrl` where the probes are served apart). */
  readyMessage: string;
  logFile: string;
  timeoutMs: number;
  /** Told the child as soon as it is spawned, so the caller stops it also when the start fails. */
  spawned: (child: ChildProcess) => void;
  /**
   * In a process group of its own: a terminal's Ctrl-C then reaches the bench only, which must stop
   * the child itself with one SIGTERM (a second signal would end a projector at once, without
   * leaving its consumer group). Without it, Ctrl-C stops the child with the bench.
   */
  ownProcessGroup: boolean;
}

/** Starts `ossn <command>` and resolves with its URLs once it is ready (/readyz 200). */
export async function startOssnProcess(options: OssnProcessOptions): Promise<{ child: ChildProcess; url: string; opsUrl: string }> {
  const { entry, command, readyMessage, logFile, timeoutMs } = options;
  // Its log straight into a file: through a pipe, its synchronous log writes would wait on the
  // bench reading them, and a busy bench would slow the service down.
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [entry, command], { env: { ...process.env, ...options.env }, stdio: ['ignore', log, log], detached: options.ownProcessGroup });
  closeSync(log);
  options.spawned(child);
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit = `ossn ${command} exited (code ${code}, signal ${signal}); see ${logFile}`));
  const deadline = Date.now() + timeoutMs;
  let url: string | undefined;
  let opsUrl: string | undefined;
  while (!url || !opsUrl) {
    if (exit) throw new Error(exit);
    if (Date.now() > deadline) throw new Error(`ossn ${command} did not log '${readyMessage}' within ${timeoutMs / 1000} s; see ${logFile}`);
    await sleep(200);
    const line = readFileSync(logFile, 'utf8').split('\n').find((l) => l.includes(readyMessage));
    const logged = line ? (JSON.parse(line) as { url?: string; opsUrl?: string }) : {};
    url = logged.url;
    opsUrl = logged.opsUrl ?? logged.url;
  }
  for (;;) {
    const status = await fetch(`${opsUrl}/readyz`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (exit) throw new Error(exit);
    if (Date.now() > deadline) throw new Error(`ossn ${command} not ready within ${timeoutMs / 1000} s (/readyz ${status}); see ${logFile}`);
    await sleep(500);
  }
  return { child, url, opsUrl };
}
