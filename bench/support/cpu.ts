// CPU time of processes from /proc, sampled at the start and the end of a bench's window: user +
// system time of a process (all its threads), of its main thread alone (a Node process's event
// loop, which saturates at one core), or summed over a process group (Kafka's JVM under its launcher).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { groupMembers } from '../../scripts/stack/process.js';

/** Clock ticks per second of /proc's times; asked once (it is 100 on nearly every Linux). */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a stat file, in seconds; 0 when it is gone. */
function statSeconds(path: string): number {
  try {
    const text = readFileSync(path, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after it.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return 0;
  }
}

export interface WatchedCpu {
  name: string;
  pid: number;
  /** Sum over the process group `pid` leads. */
  group?: boolean;
}

export interface CpuSample {
  /** Seconds of CPU per watched name, all threads. */
  total: Record<string, number>;
  /** Seconds of CPU of each watched (non-group) process's main thread. */
  mainThread: Record<string, number>;
  /** The whole machine: busy and all CPU seconds since boot, summed over its cores. */
  machineBusy: number;
  machineAll: number;
}

function machineSeconds(): { busy: number; all: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice).
  const all = fields.slice(0, 8).reduce((sum, n) => sum + n, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: (all - idle) / ticksPerSecond, all: all / ticksPerSecond };
}

export function sampleCpu(watched: WatchedCpu[]): CpuSample {
  const total: Record<string, number> = {};
  const mainThread: Record<string, number> = {};
  for (const { name, pid, group } of watched) {
    const pids = group ? groupMembers(pid) : [pid];
    total[name] = pids.reduce((sum, member) => sum + statSeconds(`/proc/${member}/stat`), 0);
    if (!group) mainThread[name] = statSeconds(`/proc/${pid}/task/${pid}/stat`);
  }
  const machine = machineSeconds();
  return { total, mainThread, machineBusy: machine.busy, machineAll: machine.all };
}
