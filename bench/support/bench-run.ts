// A bench's child processes and what it created, cleaned up at its end and on Ctrl-C or a failure:
// the children first (SIGTERM, SIGKILL after a grace), then each clean-up in the reverse order
// of its registration, each bounded. No child outlives the bench.
import type { ChildProcess } from 'node:child_process';
import { withDeadline } from '../../services/plumbing/lifecycle/deadline.js';

const CLEANUP_DEADLINE_MS = 30_000;

export class BenchRun {
  /** The running children by name (a stopped one is taken out). */
  readonly children = new Map<string, ChildProcess>();
  private readonly cleanups: { what: string; work: () => Promise<unknown> }[] = [];
  private cleaning: Promise<void> | undefined;
  private stopped = false;

  /** `say` prints a progress line; a child gets `stopGraceMs` after SIGTERM before SIGKILL. */
  constructor(
    private readonly say: (line: string) => void,
    private readonly stopGraceMs = 30_000,
  ) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.cleaning) {
          say(`${signal} again: leaving at once`);
          process.exit(130);
        }
        this.stopped = true;
        say(`${signal}: stopping the children and removing what this run created`);
        void this.cleanUp().finally(() => process.exit(130));
      });
    }
    // A failure anywhere still cleans up; while cleaning, what breaks because of it is expected.
    process.on('uncaughtException', (error) => {
      if (this.cleaning) return;
      this.stopped = true;
      process.stderr.write(`${error.stack ?? String(error)}\n`);
      void this.cleanUp().finally(() => process.exit(1));
    });
    // Whatever ends this process, no child outlives it.
    process.on('exit', () => {
      for (const child of this.children.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
  }

  /** Set on Ctrl-C or a failure: load generators stop, so nothing sends through what is being closed. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** Registers a clean-up, run at the end after the children stopped (the latest registered first). */
  onCleanUp(what: string, work: () => Promise<unknown>): void {
    this.cleanups.push({ what, work });
  }

  /** Stops the named child (SIGTERM, then SIGKILL after the grace) and forgets it. */
  async stopChild(name: string): Promise<void> {
    const child = this.children.get(name);
    if (!child) return;
    await this.stop(name, child);
    this.children.delete(name);
  }

  private async stop(name: string, child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    await withDeadline(exited, this.stopGraceMs, `stopping ${name}`).catch(async () => {
      this.say(`${name} did not stop within ${this.stopGraceMs / 1000} s of SIGTERM: SIGKILL`);
      child.kill('SIGKILL');
      await withDeadline(exited, 5_000, `killing ${name}`).catch(() => undefined);
    });
  }

  /** Stops every child, then runs the clean-ups; once, however often it is called. */
  cleanUp(): Promise<void> {
    this.cleaning ??= (async () => {
      await Promise.all([...this.children].map(([name, child]) => this.stop(name, child)));
      for (const { what, work } of this.cleanups.reverse()) {
        await withDeadline(work(), CLEANUP_DEADLINE_MS, what).catch((error: unknown) => this.say(`clean-up: ${what}: ${error instanceof Error ? error.message : String(error)}`));
      }
    })();
    return this.cleaning;
  }
}
