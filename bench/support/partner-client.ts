// A partner's queryType 3 polls, each of the four kinds (order status or shipments, SOAP or JSON),
// over keep-alive HTTP/1.1 (node:http: cheaper than fetch per request), every answer read to its
// end and sorted into ok or the kind of error: an HTTP status, a SOAP fault, or a network failure.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ORDER_STATUS_JSON_PATH, SHIPMENTS_JSON_PATH } from '../../services/query/versions/1.0.0/json/index.js';
import { ORDER_STATUS_PATH, SHIPMENT_NOTIFICATION_PATH } from '../../services/query/versions/1.0.0/soap/index.js';
import { shipmentRequest, statusDetailsRequest } from '../../test/support/soap-requests.js';
import { basic } from '../../test/support/json-requests.js';

export const pollKinds = ['status SOAP', 'status JSON', 'shipments SOAP', 'shipments JSON'] as const;
export type PollKind = (typeof pollKinds)[number];

export interface PartnerLogin {
  id: string;
  password: string;
  /** The loopback address the partner's requests come from (failed logins are limited per address, as partners' own addresses are in production). */
  address?: string;
}

export interface PollResult {
  kind: PollKind;
  ms: number;
  /** 'ok', or the error: `HTTP <status>`, `SOAP fault <code> (HTTP <status>)`, `network <code>`. */
  outcome: string;
  /** A refusal that says when to ask again (busy or rate-limited): its Retry-After, in seconds. */
  retryAfterSeconds?: number;
}

interface Spec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  soap: boolean;
}

function spec(kind: PollKind, login: PartnerLogin, since: string): Spec {
  const status = kind.startsWith('status');
  if (kind.endsWith('SOAP')) {
    // The requests the route tests send (login fields as each schema has them); bench passwords need no escaping.
    const { id, password } = login;
    const body = Buffer.from(
      status ? statusDetailsRequest({ id, password, queryType: '3', statusTimeStamp: since }) : shipmentRequest({ id, password, queryType: '3', shipmentDateTimeStamp: since }),
    );
    return {
      method: 'POST',
      path: status ? ORDER_STATUS_PATH : SHIPMENT_NOTIFICATION_PATH,
      headers: {
        'content-type': 'text/xml; charset=utf-8',
        soapaction: status ? '"getOrderStatusDetails"' : '"getOrderShipmentNotification"',
        'content-length': String(body.length),
      },
      body,
      soap: true,
    };
  }
  const params = new URLSearchParams({ queryType: '3', [status ? 'statusTimeStamp' : 'shipmentDateTimeStamp']: since });
  return {
    method: 'GET',
    path: `${status ? ORDER_STATUS_JSON_PATH : SHIPMENTS_JSON_PATH}?${params}`,
    headers: { authorization: basic(login.id, login.password) },
    soap: false,
  };
}

export class PartnerClient {
  private readonly agent: Agent;
  private readonly origin: URL;

  /** `maxSockets` per source address; `timeoutMs` bounds each request from its send to its answer's end. */
  constructor(origin: string, maxSockets: number, private readonly timeoutMs: number) {
    this.origin = new URL(origin);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** One poll; never rejects (a failure is its outcome). */
  poll(kind: PollKind, login: PartnerLogin, since: string): Promise<PollResult> {
    const { method, path, headers, body, soap } = spec(kind, login, since);
    const sent = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: string, retryAfterSeconds?: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ kind, ms: performance.now() - sent, outcome, retryAfterSeconds });
      };
      const req = request({ host: this.origin.hostname, port: this.origin.port, method, path, headers, agent: this.agent, localAddress: login.address }, (res) => {
        const status = res.statusCode ?? 0;
        // Only a SOAP error's body is kept, for its faultcode; answers are read and dropped.
        const keep = soap && status !== 200;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          if (keep) chunks.push(chunk);
        });
        res.on('end', () => {
          if (status === 200) return done('ok');
          const code = keep ? /<faultcode>([^<]*)<\/faultcode>/.exec(Buffer.concat(chunks).toString('utf8'))?.[1] : undefined;
          const retryAfter = res.headers['retry-after'];
          done(code ? `SOAP fault ${code} (HTTP ${status})` : `HTTP ${status}`, retryAfter === undefined ? undefined : Number(retryAfter));
        });
        res.on('error', (error: NodeJS.ErrnoException) => done(`network ${error.code ?? error.name}`));
      });
      const deadline = setTimeout(() => req.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })), this.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => done(`network ${error.code ?? error.name}`));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
