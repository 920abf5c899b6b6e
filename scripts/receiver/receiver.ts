// A receiver of OSN 2.1.0 ship notifications, to try push with (docs/operations.md, "A receiver to try push with"): a SOAP server node-soap builds from the official 2.1.0 WSDL (wsdl/osn-2.1.0/),
// answering sendAdvanceShipmentNotification as a partner's receiver would. It checks the id and
// password ossn sends, keeps every notification it accepts in the order it accepted them, and can be
// told to misbehave (slow, 5xx, a ServiceMessage Error, no answer at all) as real receivers do.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import soap from 'soap';
import { deriveWsdl } from '../../services/query/protocol/soap/wsdl.js';

const WSDL_ROOT = new URL('../../wsdl/', import.meta.url);
const WSDL_DIR = new URL('osn-2.1.0/', WSDL_ROOT);
export const RECEIVER_PATH = '/osn/2.1.0';

/** How the receiver answers the next request. */
export type Behaviour =
  | 'accept'
  /** Accepts after `slowMs`. */
  | 'slow'
  /** HTTP 503 with Retry-After: 1, before reading the request. */
  | 'unavailable'
  /** HTTP 200 with a ServiceMessage Error (999): not accepted. */
  | 'error-message'
  /** Reads the request and never answers. */
  | 'no-answer';

export interface AcceptedNotification {
  transactionId: string;
  receivedAt: Date;
  customerIdentifier?: string | undefined;
  /** As node-soap parsed it from the request. */
  notification: Record<string, unknown>;
}

export interface ReceiverOptions {
  host?: string;
  /** 0 or absent: any free port. */
  port?: number;
  /** The login ossn must send; a wrong one is answered with the Error 105. */
  login: { id: string; password?: string | undefined };
  /** How to answer each request, by its number from 1. */
  behaviour?: (requestNumber: number) => Behaviour;
  slowMs?: number;
}

export interface Receiver {
  /** The endpoint to give `ossn push add --url`. */
  url: string;
  /** Every notification accepted, in the order accepted. */
  readonly accepted: readonly AcceptedNotification[];
  /** Requests received, accepted or not. */
  readonly requests: number;
  /** When each request came, in order: what a sender's pace looks like from here. */
  readonly requestedAt: readonly Date[];
  close(): Promise<void>;
}

const message = (code: number, description: string, severity: 'Error' | 'Information') => ({ ServiceMessageArray: { ServiceMessage: [{ code, description, severity }] } });

/**
 * The official WSDL as ossn serves it (deriveWsdl): node-soap cannot read its several xsd:schema
 * blocks importing one namespace, so they become one block including the XSDs, found under
 * WSDL_ROOT. Its messages are renamed after their elements (`…RequestMessage` → `…Request`): node-soap's
 * server finds a request's message by the element's name, and the operations' names start lowercase
 * where the elements' start uppercase. Message names never travel on the wire.
 */
async function officialWsdl(url: string): Promise<string> {
  const original = await readFile(new URL('OrderShipmentNotificationService.wsdl', WSDL_DIR), 'utf8');
  return deriveWsdl(original, url, '/osn-2.1.0').replace(/(Request|Response)Message"/g, '$1"');
}

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const accepted: AcceptedNotification[] = [];
  const sockets = new Set<Socket>();
  let requests = 0;
  const requestedAt: Date[] = [];
  const behaviour = options.behaviour ?? (() => 'accept');
  const pending = new Map<number, Behaviour>();

  const server = createServer();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const service = {
    OrderShipmentNotificationService: {
      OrderShipmentNotificationServiceBinding: {
        sendAdvanceShipmentNotification: async (args: Record<string, unknown>, _callback: unknown, _headers: unknown, req: IncomingMessage & { requestNumber?: number }) => {
          const mode = pending.get(req.requestNumber ?? 0) ?? 'accept';
          if (args['id'] !== options.login.id || (options.login.password !== undefined && args['password'] !== options.login.password)) {
            return message(105, 'Authentication Credentials failed', 'Error');
          }
          if (mode === 'error-message') return message(999, 'General Error – the receiver could not store the notification', 'Error');
          if (mode === 'slow') await new Promise((resolve) => setTimeout(resolve, options.slowMs ?? 2_000));
          // Never settles: the connection stays open until the sender gives up or the receiver closes.
          if (mode === 'no-answer') await new Promise(() => undefined);
          const transactionId = randomUUID();
          accepted.push({
            transactionId,
            receivedAt: new Date(),
            customerIdentifier: args['customerIdentifier'] as string | undefined,
            notification: args['AdvanceShipmentNotification'] as Record<string, unknown>,
          });
          return { transactionId };
        },
      },
    },
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  // An IPv6 address goes in brackets in a URL.
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${RECEIVER_PATH}`;
  const xml = await officialWsdl(url);
  // Resolved once node-soap has read the WSDL and its XSDs and listens on the path.
  let ready!: (error: unknown) => void;
  const listening = new Promise<void>((resolve, reject) => (ready = (error) => (error ? reject(error as Error) : resolve())));
  const soapServer = soap.listen(server, { path: RECEIVER_PATH, services: service, xml, uri: new URL('receiver.wsdl', WSDL_ROOT).pathname, callback: (error: unknown) => ready(error) });
  // node-soap's documented hook before it reads a request: where misbehaviour it cannot express is decided.
  soapServer.authorizeConnection = (req: IncomingMessage & { requestNumber?: number }, res?: ServerResponse) => {
    if (req.method !== 'POST') return true;
    requests++;
    requestedAt.push(new Date());
    req.requestNumber = requests;
    const mode = behaviour(requests);
    pending.set(requests, mode);
    if (mode !== 'unavailable' || !res) return true;
    res.writeHead(503, { 'Retry-After': '1', 'Content-Type': 'text/plain' });
    res.write('unavailable');
    req.resume();
    return false;
  };
  await listening;
  return {
    url,
    accepted,
    get requests() {
      return requests;
    },
    requestedAt,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
