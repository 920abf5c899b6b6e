// Progress of long work on an operator's screen: on a terminal one line rewritten in place, twice a
// second; otherwise (a log, a CI job) one plain line every few seconds.

export interface ProgressOptions {
  /** What is counted: "events", "MB". */
  unit: string;
  out?: NodeJS.WriteStream;
  /** Between plain lines when not a terminal; 5 s by default. */
  plainIntervalMs?: number;
  now?: () => number;
}

const number = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** "12,000 of 100,000 events (12%), 3,100 events/s, 28s left" */
export function progressLine(done: number, total: number | undefined, unit: string, elapsedSeconds: number): string {
  const rate = elapsedSeconds > 0 ? done / elapsedSeconds : 0;
  if (total === undefined || total <= 0) return `${number(done)} ${unit}, ${number(rate)} ${unit}/s`;
  const percent = Math.min(100, Math.floor((done / total) * 100));
  const left = rate > 0 ? formatDuration((total - done) / rate) : '?';
  return `${number(done)} of ${number(total)} ${unit} (${percent}%), ${number(rate)} ${unit}/s, ${left} left`;
}

export class ProgressDisplay {
  private readonly out: NodeJS.WriteStream;
  private readonly now: () => number;
  private readonly started: number;
  private lastShown = -Infinity;
  private shownInPlace = false;

  constructor(private readonly options: ProgressOptions) {
    this.out = options.out ?? process.stderr;
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  get elapsedSeconds(): number {
    return (this.now() - this.started) / 1000;
  }

  /** Shows the progress when it is time to (throttled); `label` goes before the numbers. */
  update(done: number, total?: number, label = ''): void {
    const tty = this.out.isTTY === true;
    const interval = tty ? 500 : (this.options.plainIntervalMs ?? 5_000);
    if (this.now() - this.lastShown < interval) return;
    this.lastShown = this.now();
    const line = `${label}${progressLine(done, total, this.options.unit, this.elapsedSeconds)}`;
    if (tty) {
      this.out.write(`\r\x1b[2K${line}`);
      this.shownInPlace = true;
    } else {
      this.out.write(`${line}\n`);
    }
  }

  /** Ends the in-place line, if any, and prints `line` when given. */
  finish(line?: string): void {
    if (this.shownInPlace) this.out.write('\r\x1b[2K');
    this.shownInPlace = false;
    if (line !== undefined) this.out.write(`${line}\n`);
  }
}
