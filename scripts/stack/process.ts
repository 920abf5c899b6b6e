import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** A process we started: the pid (also its process group id) and its start time, to tell pid reuse apart. */
export interface ProcessRecord {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); absent where /proc is not. */
  startTime?: number;
}

interface ProcStat {
  state: string;
  pgrp: number;
  startTime: number;
}

function readStat(pid: number | string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: split after it.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '?', pgrp: Number(fields[2]), startTime: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

const hasProc = existsSync('/proc/self/stat');

/** This Node process, as a record other processes can check. */
export function ownProcess(): ProcessRecord {
  return { pid: process.pid, startTime: readStat(process.pid)?.startTime };
}

function signalExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the recorded process still runs (a zombie does not count) and is the same process. */
export function isRunning(record: ProcessRecord): boolean {
  if (!hasProc) return signalExists(record.pid);
  const stat = readStat(record.pid);
  if (!stat || stat.state === 'Z') return false;
  return record.startTime === undefined || stat.startTime === record.startTime;
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number): number[] {
  if (!hasProc) return signalExists(-pgid) ? [pgid] : [];
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') members.push(Number(entry));
  }
  return members;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupMembers(pgid).length > 0) {
    if (Date.now() >= deadline) return false;
    await delay(100);
  }
  return true;
}

/** SIGKILLs a whole process group, as a crash would end it; returns the pids still alive after `timeoutMs` (none, normally). */
export async function killGroup(pgid: number, timeoutMs = 10_000): Promise<number[]> {
  signalGroup(pgid, 'SIGKILL');
  await groupGone(pgid, timeoutMs);
  return groupMembers(pgid);
}

/** Resident memory (VmRSS) summed over the live members of a process group, in bytes; 0 without /proc. */
export function groupRssBytes(pgid: number): number {
  let kib = 0;
  for (const pid of groupMembers(pgid)) {
    try {
      kib += Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // ended meanwhile: it holds no memory
    }
  }
  return kib * 1024;
}

/**
 * Stops a whole process group: SIGTERM, then SIGKILL when it has not ended after `graceMs`.
 * Returns the pids still alive afterwards (none, unless the kernel would not let go of them).
 */
export async function stopGroup(pgid: number, graceMs: number): Promise<number[]> {
  signalGroup(pgid, 'SIGTERM');
  // A stopped (SIGSTOP, Ctrl-Z) process acts on SIGTERM only once continued.
  signalGroup(pgid, 'SIGCONT');
  if (await groupGone(pgid, graceMs)) return [];
  signalGroup(pgid, 'SIGKILL');
  await groupGone(pgid, 5_000);
  return groupMembers(pgid);
}

export interface Started extends ProcessRecord {
  /** Set once the process has ended while this Node process watched it. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

export interface LaunchSpec {
  command: string;
  args: string[];
  cwd?: string;
}

/**
 * Starts a server in its own session and process group (so that it outlives the caller and can be
 * stopped as a whole), with stdout and stderr in `logFile`. The previous log is kept beside it as
 * `.previous.log`, so the reason a server died survives its restart.
 */
export function spawnDetached(spec: LaunchSpec, logFile: string): Promise<Started> {
  if (existsSync(logFile)) renameSync(logFile, logFile.replace(/\.log$/, '.previous.log'));
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => {
        const pid = child.pid as number;
        const started: Started = { pid, startTime: readStat(pid)?.startTime };
        child.once('exit', (code, signal) => {
          started.exit = { code, signal };
        });
        child.unref();
        resolve(started);
      });
    });
  } finally {
    closeSync(fd);
  }
}
