// The outage partners saw around a fault: from the first failed request's start to the last
// failed request's end, measured relative to the fault.
import type { RequestRecord } from './partners.js';

export interface OutageWindow {
  /** Requests of the case, answered and failed. */
  ok: number;
  failed: number;
  /** ms from the fault to the first failed request's start (negative: sent before the fault), undefined without failures. */
  from?: number;
  /** ms from the fault to the last failed request's end. */
  to?: number;
  /** to - from, 0 without failures. */
  lengthMs: number;
  /** The longest stretch one requester (a poller, a partner's lookups) saw failing: first failure's start to last failure's end. */
  longestPerRequesterMs: number;
  /** A few failed requests, for a message. */
  examples: string[];
}

export function outageWindow(requests: RequestRecord[], faultAt: number): OutageWindow {
  const failed = requests.filter((r) => !r.ok);
  const byRequester = new Map<string, RequestRecord[]>();
  for (const r of failed) byRequester.set(r.requester, [...(byRequester.get(r.requester) ?? []), r]);
  const span = (rs: RequestRecord[]) => Math.max(...rs.map((r) => r.endedAt)) - Math.min(...rs.map((r) => r.startedAt));
  const window: OutageWindow = {
    ok: requests.length - failed.length,
    failed: failed.length,
    lengthMs: failed.length > 0 ? span(failed) : 0,
    longestPerRequesterMs: Math.max(0, ...[...byRequester.values()].map(span)),
    examples: failed.slice(0, 5).map((r) => `${r.requester} at ${r.startedAt - faultAt} ms: ${r.outcome}`),
  };
  if (failed.length > 0) {
    window.from = Math.min(...failed.map((r) => r.startedAt)) - faultAt;
    window.to = Math.max(...failed.map((r) => r.endedAt)) - faultAt;
  }
  return window;
}
