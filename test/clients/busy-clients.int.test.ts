// What a partner's client makes of a login refused as busy (1.0.0 SOAP: HTTP 503, Retry-After and
// a fault saying so): zeep, the client the PromoStandards world mostly uses, raises it as a Fault
// with its text. (node-soap: services/query/versions/1.0.0/soap/node-soap.test.ts.)
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callZeep } from '../../scripts/python/zeep-client.js';
import { ensurePythonVenv } from '../../scripts/python/venv.js';
import { PasswordChecksBusyError } from '../../services/domain/credentials/check-slots.js';
import { promoStandardsSoap } from '../../services/query/versions/1.0.0/soap/plugin.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../support/fake-ports.js';
import { freePort } from '../support/free-port.js';
import { ORDER_STATUS_URL } from '../support/soap-requests.js';

let app: FastifyInstance;
let base: string;
let python: string;

beforeAll(async () => {
  python = await ensurePythonVenv();
  const authenticator = new FakeAuthenticator(ACCOUNTS);
  authenticator.failure = new PasswordChecksBusyError();
  // The WSDL's soap:address must be where the service listens: the port is chosen first.
  base = `http://127.0.0.1:${await freePort()}`;
  app = Fastify({ logger: false });
  await app.register(promoStandardsSoap, { publicBaseUrl: base, lookups: new FakeLookups(), authenticator });
  await app.listen({ host: '127.0.0.1', port: Number(new URL(base).port) });
}, 300_000);
afterAll(() => app?.close());

it('zeep raises a login refused as busy as a Fault saying the server is busy', async () => {
  const outcome = await callZeep(python, `${base}${ORDER_STATUS_URL}?wsdl`, 'getOrderStatusTypes', { wsVersion: '1.0.0', id: 'both', password: 'secret' });
  expect(outcome).toEqual({ fault: { faultcode: 'soap:Server', faultstring: 'Server busy — retry in a second' } });
});
