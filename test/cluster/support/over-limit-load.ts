// One credential sending requests above its rate limit through the address in front of both query
// services, SOAP and JSON in turn, each answer recorded with the instance that gave it; and the
// admissions grouped by the window that admitted them.
import { setTimeout as sleep } from 'node:timers/promises';
import { basic, STATUS_URL } from '../../support/json-requests.js';
import { ORDER_STATUS_URL, statusDetailsRequest } from '../../support/soap-requests.js';
import type { Partner } from './partners.js';
import { upstreamHeader } from './round-robin-proxy.js';

export interface LimitedAnswer {
  startedAt: number;
  endedAt: number;
  /** HTTP status; 0 for a network error. */
  status: number;
  /** The query service (its index) that answered, as the proxy tells. */
  instance?: number;
}

export class OverLimitLoad {
  readonly answers: LimitedAnswer[] = [];
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  /**
   * `burst` requests every `everyMs`, whether or not earlier ones were answered, as long as at
   * most `maxInFlight` are unanswered: the rate offered stays above the limit until answers take
   * about maxInFlight ÷ (instances × limit per second) (1 s here). Waiting for each burst's answers
   * first offered a loaded machine's services less than the limit, and an instance counting alone
   * then never refused.
   */
  constructor(
    private readonly url: string,
    private readonly partner: Partner,
    private readonly burst: number,
    private readonly everyMs: number,
    private readonly maxInFlight = 4 * burst,
  ) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      for (let round = 0; this.running; round++) {
        const room = Math.min(this.burst, this.maxInFlight - this.inFlight.size);
        for (let i = 0; i < room; i++) {
          const sending = this.send((round + i) % 2 === 0 ? 'json' : 'soap');
          this.inFlight.add(sending);
          void sending.finally(() => this.inFlight.delete(sending));
        }
        await sleep(this.everyMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async send(how: 'json' | 'soap'): Promise<void> {
    const { id, password } = this.partner;
    const startedAt = Date.now();
    const signal = AbortSignal.timeout(20_000);
    const request =
      how === 'json'
        ? fetch(`${this.url}${STATUS_URL}?queryType=1&referenceNumber=PO-1`, { headers: { authorization: basic(id, password) }, signal })
        : fetch(`${this.url}${ORDER_STATUS_URL}`, {
            method: 'POST',
            headers: { 'content-type': 'text/xml; charset=utf-8' },
            body: statusDetailsRequest({ id, password, queryType: '1', referenceNumber: 'PO-1' }),
            signal,
          });
    try {
      const response = await request;
      await response.arrayBuffer();
      const instance = response.headers.get(upstreamHeader);
      this.answers.push({ startedAt, endedAt: Date.now(), status: response.status, ...(instance === null ? {} : { instance: Number(instance) }) });
    } catch {
      this.answers.push({ startedAt, endedAt: Date.now(), status: 0 });
    }
  }
}

export interface AdmittedRun {
  admitted: number;
  /** When its first answer was asked for: runs are joined by it (admittedWindows). */
  firstStartedAt: number;
  /** When its first answer ended: windows are dated by it. */
  from: number;
  to: number;
}

/**
 * The admissions, in the order they were answered, in runs that no refusal (429) interrupts. Under
 * a load above the limit each window admits until its count is spent and refuses the rest until it
 * ends, so each run is what one window admitted (or part of it, where answers cross at its ends).
 * A run is dated by its first answer's end, not its start: a request can wait seconds in the
 * queues before the window that admits it has opened (a run dated by its start once opened 7 s
 * after the last on a loaded machine, where the window is 10 s).
 */
export function admittedRuns(answers: LimitedAnswer[]): AdmittedRun[] {
  const runs: AdmittedRun[] = [];
  let current: AdmittedRun | undefined;
  for (const answer of [...answers].sort((a, b) => a.endedAt - b.endedAt)) {
    if (answer.status === 429) current = undefined;
    else if (answer.status === 200) {
      if (!current) runs.push((current = { admitted: 0, firstStartedAt: answer.startedAt, from: answer.endedAt, to: answer.endedAt }));
      current.admitted++;
      current.to = answer.endedAt;
    }
  }
  return runs;
}

/**
 * admittedRuns joined where a refusal only crossed a window's start (answers ending out of the
 * order they were admitted in): a run asked for less than `slackMs` after the last one's end is
 * that window's. Joined by its start, not its end: an admitted answer slower than the slack, the
 * window's refusals ending before it, is still its window's.
 */
export function admittedWindows(answers: LimitedAnswer[], slackMs: number): AdmittedRun[] {
  const windows: AdmittedRun[] = [];
  for (const run of admittedRuns(answers)) {
    const last = windows.at(-1);
    if (last && run.firstStartedAt - last.to < slackMs) {
      last.admitted += run.admitted;
      last.to = run.to;
    } else windows.push({ ...run });
  }
  return windows;
}

/** The most answers admitted (200) whose end falls within any stretch of `stretchMs`. */
export function mostAdmittedWithin(answers: LimitedAnswer[], stretchMs: number): { admitted: number; from: number } {
  const ends = answers.filter((a) => a.status === 200).map((a) => a.endedAt).sort((a, b) => a - b);
  let most = { admitted: 0, from: ends[0] ?? 0 };
  for (let first = 0, last = 0; first < ends.length; first++) {
    while (last < ends.length && ends[last]! < ends[first]! + stretchMs) last++;
    if (last - first > most.admitted) most = { admitted: last - first, from: ends[first]! };
  }
  return most;
}
