// The load generator, in a worker thread of its own: its event loop never competes with the
// servers' (which run on the main thread). HTTP/1.1 over keep-alive sockets to loopback, at most
// `concurrency` requests in flight; every answer is read to its end. Driven by load.ts.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface LoadJob {
  id: number;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Sent in turn, cycling. */
  requests: LoadRequest[];
  total: number;
  concurrency: number;
}

export interface LoadResult {
  id: number;
  elapsedMs: number;
  completed: number;
  /** Answers other than 200, and transport errors, by status (or 'error'). */
  failures: Record<string, number>;
  /** Per-request time from send to the end of the answer, ms, ascending. */
  latenciesMs: number[];
  bytes: number;
}

const agents = new Map<string, Agent>();

function agentFor(origin: string, concurrency: number): Agent {
  const key = `${origin} ${concurrency}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
    agents.set(key, agent);
  }
  return agent;
}

function send(origin: URL, agent: Agent, spec: LoadRequest): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
    const req = request(
      {
        host: origin.hostname,
        port: origin.port,
        method: spec.method,
        path: spec.path,
        agent,
        headers: { ...spec.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function run(job: LoadJob): Promise<LoadResult> {
  const origin = new URL(job.origin);
  const agent = agentFor(job.origin, job.concurrency);
  const latenciesMs: number[] = [];
  const failures: Record<string, number> = {};
  let next = 0;
  let bytes = 0;
  const start = performance.now();
  const lane = async () => {
    while (next < job.total) {
      const spec = job.requests[next++ % job.requests.length] as LoadRequest;
      const sent = performance.now();
      try {
        const answer = await send(origin, agent, spec);
        bytes += answer.bytes;
        if (answer.status !== 200) failures[answer.status] = (failures[answer.status] ?? 0) + 1;
      } catch {
        failures['error'] = (failures['error'] ?? 0) + 1;
      }
      latenciesMs.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: Math.min(job.concurrency, job.total) }, lane));
  const elapsedMs = performance.now() - start;
  return { id: job.id, elapsedMs, completed: latenciesMs.length, failures, latenciesMs: latenciesMs.sort((a, b) => a - b), bytes };
}

parentPort?.on('message', (job: LoadJob | 'close') => {
  if (job === 'close') {
    for (const agent of agents.values()) agent.destroy();
    parentPort?.close();
    return;
  }
  void run(job).then((result) => parentPort?.postMessage(result));
});
