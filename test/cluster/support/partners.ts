// Partners at work on one address: each polls queryType 3 for order status and for shipments,
// through SOAP and through JSON, with the time of its previous poll, and accumulates what it is
// handed; each also looks orders up with queryTypes 1 and 4. Every request's time and outcome is
// recorded, and each poller notes any answer that handed it a state older than one it had. Only
// an answer the service could not give (HTTP 5xx, a network error, a timeout) is a failed request,
// which an outage may explain; a wrong answer (another client's sales order, a body that does not
// parse, a 4xx for a valid credential under its limit) is noted as such, which nothing explains.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Random } from '../../../services/ossn/demo-events/random.js';
import { basic, SHIPMENTS_URL, STATUS_URL } from '../../support/json-requests.js';
import { answerBody, arrayOf, ORDER_STATUS_URL, SHIPMENT_URL, shipmentRequest, statusDetailsRequest, type XmlNode } from '../../support/soap-requests.js';
import { purchaseOrderOf } from './erp-stream.js';

export interface Partner {
  id: string;
  password: string;
  clientIds: string[];
}

export interface RequestRecord {
  /** The poller or looker-up that sent it. */
  requester: string;
  startedAt: number;
  endedAt: number;
  ok: boolean;
  /** "200", "HTTP 500", or the network error. */
  outcome: string;
}

/** An answer given but wrong: never part of an outage. */
export interface WrongAnswer {
  requester: string;
  at: number;
  what: string;
}

export interface PollerView {
  name: string;
  partner: Partner;
  kind: 'status' | 'shipments';
  /** By sales order (`<clientId>:<salesOrderNumber>`): the status and its time, as last received. */
  statuses: Map<string, { statusID: number; validTimestamp: number }>;
  /** By sales order: the packages received, and whether its location was last said complete. */
  shipments: Map<string, { packages: Set<number>; complete: boolean }>;
  /** Answers that handed over a state older than one received before. */
  older: string[];
  /** When each successful poll was sent. */
  okPolls: number[];
}

interface StatusDetail {
  clientId: string;
  salesOrderNumber: string;
  statusID: number;
  validTimestamp: string;
}

interface ShipmentsAnswered {
  clientId: string;
  salesOrderNumber: string;
  locations: { complete: boolean; packages: number[] }[];
}

function takeStatus(view: PollerView, details: StatusDetail[]): void {
  for (const d of details) {
    const key = `${d.clientId}:${d.salesOrderNumber}`;
    const received = { statusID: Number(d.statusID), validTimestamp: new Date(d.validTimestamp).getTime() };
    const held = view.statuses.get(key);
    if (held && received.validTimestamp < held.validTimestamp) view.older.push(`${key}: status of ${d.validTimestamp} after one of ${new Date(held.validTimestamp).toISOString()}`);
    else view.statuses.set(key, received);
  }
}

function takeShipments(view: PollerView, answered: ShipmentsAnswered[]): void {
  for (const so of answered) {
    const key = `${so.clientId}:${so.salesOrderNumber}`;
    const held = view.shipments.get(key) ?? { packages: new Set<number>(), complete: false };
    for (const location of so.locations) {
      // A completed location takes no more packages: complete going back to false is an older state.
      if (held.complete && !location.complete) view.older.push(`${key}: location complete, then not`);
      held.complete = location.complete;
      for (const id of location.packages) held.packages.add(id);
    }
    view.shipments.set(key, held);
  }
}

const items = (node: XmlNode, wrapper: string, item: string) => arrayOf((node[wrapper] as XmlNode | undefined)?.[item]);
const text = (value: unknown) => String(value ?? '');

/** The service could not answer (HTTP 5xx): a failed request. */
class HttpError extends Error {}
/** The service answered, wrongly: a violation. */
class WrongAnswerError extends Error {}

/** The answer's body as text, once its status is 200: 5xx fails the request, any other status is a wrong answer. */
async function answered(response: Response): Promise<string> {
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new (response.status >= 500 ? HttpError : WrongAnswerError)(`HTTP ${response.status}`);
  }
  return response.text();
}

/** What `read` makes of a body; any error in reading it (a body that does not parse, a field missing) is a wrong answer. */
function parsed<T>(body: string, read: (body: string) => T): T {
  try {
    return read(body);
  } catch (error) {
    if (error instanceof WrongAnswerError) throw error;
    throw new WrongAnswerError(`an answer that does not read (${String(error)}): ${body.slice(0, 200)}`);
  }
}

/** No request may hang the suite: the service's own deadlines are far shorter. */
const requestTimeoutMs = 20_000;

function soapPost(url: string, path: string, body: string): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, body, signal: AbortSignal.timeout(requestTimeoutMs) });
}

function jsonGet(url: string, partner: Partner, path: string, query: Record<string, string>): Promise<Response> {
  return fetch(`${url}${path}?${new URLSearchParams(query)}`, { headers: { authorization: basic(partner.id, partner.password) }, signal: AbortSignal.timeout(requestTimeoutMs) });
}

type Poll = (url: string, since: Date) => Promise<void>;

const pollKinds: { name: string; kind: PollerView['kind']; make: (view: PollerView) => Poll }[] = [
  {
    name: 'status SOAP',
    kind: 'status',
    make: (view) => async (url, since) => {
      const login = { id: view.partner.id, password: view.partner.password };
      const xml = await answered(await soapPost(url, ORDER_STATUS_URL, statusDetailsRequest({ ...login, queryType: '3', statusTimeStamp: since.toISOString() })));
      // SOAP names no client: the ERP stream's sales order numbers name theirs (salesOrderNumberOf).
      const details = parsed(xml, (body) => {
        const answer = answerBody(body)['GetOrderStatusDetailsResponse'] as XmlNode;
        return items(answer, 'OrderStatusArray', 'OrderStatus')
          .flatMap((o) => items(o, 'OrderStatusDetailArray', 'OrderStatusDetail'))
          .map((d) => ({ ...clientOf(view.partner, text(d['factoryOrderNumber'])), statusID: Number(d['statusID']), validTimestamp: text(d['validTimestamp']) }));
      });
      takeStatus(view, details);
    },
  },
  {
    name: 'status JSON',
    kind: 'status',
    make: (view) => async (url, since) => {
      const body = await answered(await jsonGet(url, view.partner, STATUS_URL, { queryType: '3', statusTimeStamp: since.toISOString() }));
      const details = parsed(body, (json) => {
        const { orders } = JSON.parse(json) as { orders: { details: { factoryOrderNumber: string; statusID: number; validTimestamp: string }[] }[] };
        return orders.flatMap((o) => o.details).map((d) => ({ ...clientOf(view.partner, d.factoryOrderNumber), statusID: d.statusID, validTimestamp: d.validTimestamp }));
      });
      takeStatus(view, details);
    },
  },
  {
    name: 'shipments SOAP',
    kind: 'shipments',
    make: (view) => async (url, since) => {
      const login = { id: view.partner.id, password: view.partner.password };
      const xml = await answered(await soapPost(url, SHIPMENT_URL, shipmentRequest({ ...login, queryType: '3', shipmentDateTimeStamp: since.toISOString() })));
      const salesOrders = parsed(xml, (body) => {
        const answer = answerBody(body)['GetOrderShipmentNotificationResponse'] as XmlNode;
        return items(answer, 'OrderShipmentNotificationArray', 'OrderShipmentNotification')
          .flatMap((o) => items(o, 'SalesOrderArray', 'SalesOrder'))
          .map((so) => ({
            ...clientOf(view.partner, text(so['salesOrderNumber'])),
            locations: items(so, 'ShipmentLocationArray', 'ShipmentLocation').map((l) => ({
              complete: l['complete'] === 'true',
              packages: items(l, 'PackageArray', 'Package').map((p) => Number(p['id'])),
            })),
          }));
      });
      takeShipments(view, salesOrders);
    },
  },
  {
    name: 'shipments JSON',
    kind: 'shipments',
    make: (view) => async (url, since) => {
      const body = await answered(await jsonGet(url, view.partner, SHIPMENTS_URL, { queryType: '3', shipmentDateTimeStamp: since.toISOString() }));
      type Answer = { shipments: { salesOrders: { salesOrderNumber: string; locations: { complete: boolean; packages: { id: number }[] }[] }[] }[] };
      const salesOrders = parsed(body, (json) =>
        (JSON.parse(json) as Answer).shipments
          .flatMap((s) => s.salesOrders)
          .map((so) => ({ ...clientOf(view.partner, so.salesOrderNumber), locations: so.locations.map((l) => ({ complete: l.complete, packages: l.packages.map((p) => p.id) })) })),
      );
      takeShipments(view, salesOrders);
    },
  },
];

/** The client of a sales order answered to the partner, from its number (salesOrderNumberOf). */
function clientOf(partner: Partner, salesOrderNumber: string): { clientId: string; salesOrderNumber: string } {
  const clientId = partner.clientIds.find((id) => salesOrderNumber.startsWith(`${id}-SO-`));
  if (!clientId) throw new WrongAnswerError(`sales order ${salesOrderNumber} answered to ${partner.id}, whose clients are ${partner.clientIds.join(', ')}`);
  return { clientId, salesOrderNumber };
}

/** The lookups a partner makes besides its polls, in turn: queryType 1 (a purchase order) and 4 (open orders), SOAP and JSON. */
function lookups(partner: Partner, random: Random): ((url: string) => Promise<void>)[] {
  const login = { id: partner.id, password: partner.password };
  const po = () => purchaseOrderOf(random.int(0, 9));
  const drain = async (response: Response) => void (await answered(response));
  return [
    (url) => jsonGet(url, partner, STATUS_URL, { queryType: '1', referenceNumber: po() }).then(drain),
    (url) => soapPost(url, ORDER_STATUS_URL, statusDetailsRequest({ ...login, queryType: '4' })).then(drain),
    (url) => soapPost(url, SHIPMENT_URL, shipmentRequest({ ...login, queryType: '1', referenceNumber: po(), shipmentDateTimeStamp: undefined })).then(drain),
    (url) => jsonGet(url, partner, SHIPMENTS_URL, { queryType: '4' }).then(drain),
  ];
}

export interface PartnerTrafficOptions {
  url: string;
  partners: Partner[];
  random: Random;
  /** Each poller and each partner's lookups wait this long between requests. */
  everyMs: number;
}

export class PartnerTraffic {
  readonly requests: RequestRecord[] = [];
  /** Answers given but wrong (none may be). */
  readonly wrongAnswers: WrongAnswer[] = [];
  readonly views: PollerView[];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly options: PartnerTrafficOptions) {
    this.views = options.partners.flatMap((partner) =>
      pollKinds.map(({ name, kind }) => ({ name: `${partner.id} ${name}`, partner, kind, statuses: new Map(), shipments: new Map(), older: [], okPolls: [] })),
    );
  }

  get pollers(): number {
    return this.views.length;
  }

  start(): void {
    this.running = true;
    const { url, everyMs, random } = this.options;
    this.loops = [
      ...this.views.map(async (view, i) => {
        const poll = pollKinds[i % pollKinds.length]!.make(view);
        let previous = new Date(0);
        await sleep(random.int(0, everyMs));
        while (this.running) {
          const at = new Date();
          if (await this.record(view.name, () => poll(url, previous))) {
            previous = at;
            view.okPolls.push(at.getTime());
          }
          await sleep(everyMs);
        }
      }),
      ...this.options.partners.map(async (partner) => {
        const turns = lookups(partner, random);
        await sleep(random.int(0, everyMs));
        for (let turn = 0; this.running; turn++) {
          await this.record(`${partner.id} lookups`, () => turns[turn % turns.length]!(url));
          await sleep(everyMs);
        }
      }),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Resolves once every poller has had `count` successful polls sent at or after `since`; rejects after `timeoutMs`. */
  async pollsSince(since: number, count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const behind = this.views.filter((view) => view.okPolls.filter((at) => at >= since).length < count);
      if (behind.length === 0) return;
      if (Date.now() > deadline) throw new Error(`pollers without ${count} successful polls in ${timeoutMs} ms: ${behind.map((view) => view.name).join(', ')}`);
      await sleep(200);
    }
  }

  private async record(requester: string, request: () => Promise<void>): Promise<boolean> {
    const startedAt = Date.now();
    try {
      await request();
      this.requests.push({ requester, startedAt, endedAt: Date.now(), ok: true, outcome: '200' });
      return true;
    } catch (error) {
      // An outage: HTTP 5xx, or fetch's own errors (TypeError: a refused or broken connection; the timeout's DOMException).
      const outage = error instanceof HttpError || error instanceof TypeError || (error instanceof DOMException && ['TimeoutError', 'AbortError'].includes(error.name));
      if (!outage) {
        this.wrongAnswers.push({ requester, at: startedAt, what: error instanceof WrongAnswerError ? error.message : String(error) });
        return false;
      }
      const outcome = error instanceof HttpError ? error.message : String((error as Error).cause ?? error);
      this.requests.push({ requester, startedAt, endedAt: Date.now(), ok: false, outcome });
      return false;
    }
  }
}
