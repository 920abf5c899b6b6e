// The resident memory of named processes, sampled while a bench runs: each one's peak, in MiB.
// A name stands for a process group (Kafka's JVM under its launcher, say), summed over members.
import { readFileSync } from 'node:fs';
import { groupMembers } from '../../scripts/stack/process.js';

export interface WatchedProcess {
  name: string;
  /** A process, or (group: true) the process group it leads. */
  pid: number;
  group?: boolean;
}

/** VmRSS of one process in KiB; 0 once it is gone. */
function residentKiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export class MemoryWatch {
  private readonly peaks = new Map<string, number>();
  private readonly processes: WatchedProcess[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 1_000) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  watch(process: WatchedProcess): void {
    this.processes.push(process);
    this.sample();
  }

  /** Stops watching a process (before it exits, or its pid could name another one later). */
  forget(name: string): void {
    this.sample();
    const index = this.processes.findIndex((p) => p.name === name);
    if (index >= 0) this.processes.splice(index, 1);
  }

  sample(): void {
    for (const { name, pid, group } of this.processes) {
      const kib = (group ? groupMembers(pid) : [pid]).reduce((sum, member) => sum + residentKiB(member), 0);
      this.peaks.set(name, Math.max(this.peaks.get(name) ?? 0, kib));
    }
  }

  /** Each watched name's peak resident memory so far, MiB. */
  peaksMiB(): Record<string, number> {
    this.sample();
    return Object.fromEntries([...this.peaks].map(([name, kib]) => [name, kib / 1024]));
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
