// GET /metrics (on the operators' port) after partner traffic: the counters show what that traffic did.
// A refusal is told apart by its code (OSSN_LOGIN_INVALID, OSSN_SCOPE_FORBIDDEN…), never by its text.
import Fastify from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { sample } from '../../../test/support/metrics-scrape.js';
import { createQueryMetrics } from '../../plumbing/metrics/query-metrics.js';
import { buildOpsApp } from '../../plumbing/ops-port/ops-server.js';
import { buildApp } from '../app.js';
import { basic, SHIPMENTS_URL, STATUS_URL } from '../../../test/support/json-requests.js';
import { createRequestLimits, RateLimitedError } from '../rate-limit/index.js';
import { LookupWaitTimeoutError } from '../rate-limit/lookups-in-flight.js';
import { ErrorCodes } from '../../../contracts/errors/ossn-error.js';
import { PasswordChecksBusyError } from '../../domain/credentials/check-slots.js';
import { BadRequestError, InvalidCredentialsError, MissingCredentialsError, ScopeForbiddenError } from '../versions/1.0.0/json/json-errors.js';
import { ORDER_STATUS_JSON_PATH } from '../versions/1.0.0/json/index.js';
import { SoapClientFault } from '../protocol/soap/soap-faults.js';
import { queryMetrics } from './request-metrics.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../test/support/fake-ports.js';
import { statusDetailsRequest } from '../../../test/support/soap-requests.js';
import { ORDER_STATUS_PATH } from '../versions/1.0.0/soap/index.js';
import { maxPurchaseOrdersPerAnswer } from '../../../projections/lookups/purchase-order-groups.js';

async function appWithMetrics(requestsPerMinute = 1_000) {
  const lookups = new FakeLookups();
  const metrics = createQueryMetrics();
  const authenticator = new FakeAuthenticator(ACCOUNTS);
  const app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups,
    authenticator,
    limits: createRequestLimits({ requestsPerMinute, loginFailuresPerMinute: 100 }),
    metrics,
  });
  const ops = await buildOpsApp({ logger: pino({ level: 'silent' }), registry: metrics.registry, readinessCheck: async () => {} });
  return { app, ops, lookups, authenticator };
}


const soap = (body: string) => ({ method: 'POST' as const, url: ORDER_STATUS_PATH, headers: { 'content-type': 'text/xml' }, payload: body });

describe('GET /metrics', () => {
  it('counts requests by interface, operation, queryType and outcome, with their latencies', async () => {
    const { app, ops } = await appWithMetrics();
    const auth = { authorization: basic('both', 'secret') };
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: `${STATUS_URL}?queryType=4`, headers: auth });
    await app.inject({ method: 'GET', url: `${SHIPMENTS_URL}?queryType=1&referenceNumber=PO-1`, headers: auth });
    await app.inject({ method: 'GET', url: `${STATUS_URL}?queryType=3`, headers: auth }); // no statusTimeStamp: 400
    await app.inject({ method: 'GET', url: `${STATUS_URL}?queryType=4`, headers: { authorization: basic('both', 'wrong') } });
    await app.inject(soap(statusDetailsRequest({ queryType: '2', referenceNumber: 'SO-1' })));
    await app.inject(soap(statusDetailsRequest({ queryType: '977' })));
    await app.inject(soap(statusDetailsRequest({ password: 'wrong' })));
    await ops.inject({ method: 'GET', url: '/healthz' }); // not a partner request

    const response = await ops.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    const scrape = response.body;
    const requests = (labels: string) => sample(scrape, `ossn_query_requests_total{${labels}}`);
    expect(requests('interface="json",operation="getOrderStatus",query_type="4",outcome="ok"')).toBe(3);
    expect(requests('interface="json",operation="getShipments",query_type="1",outcome="ok"')).toBe(1);
    expect(requests('interface="json",operation="getOrderStatus",query_type="3",outcome="bad_request"')).toBe(1);
    expect(requests('interface="json",operation="getOrderStatus",query_type="4",outcome="denied"')).toBe(1);
    expect(requests('interface="soap",operation="getOrderStatusDetails",query_type="2",outcome="ok"')).toBe(1);
    expect(requests('interface="soap",operation="getOrderStatusDetails",query_type="other",outcome="ok"')).toBe(1);
    expect(requests('interface="soap",operation="getOrderStatusDetails",query_type="4",outcome="denied"')).toBe(1);
    expect(sample(scrape, 'ossn_query_failed_logins_total{interface="json"}')).toBe(1);
    expect(sample(scrape, 'ossn_query_failed_logins_total{interface="soap"}')).toBe(1);
    expect(sample(scrape, 'ossn_query_request_duration_seconds_count{interface="json",operation="getOrderStatus"}')).toBe(5);
    expect(sample(scrape, 'ossn_query_request_duration_seconds_count{interface="soap",operation="getOrderStatusDetails"}')).toBe(3);
    // Lookups made: 3 status (json) + 1 status (soap, queryType 2) and 1 shipments.
    expect(sample(scrape, 'ossn_query_answer_purchase_orders_count{lookup="order_status"}')).toBe(4);
    expect(sample(scrape, 'ossn_query_answer_purchase_orders_count{lookup="shipments"}')).toBe(1);
    expect(scrape).not.toContain('secret');
    expect(scrape).not.toMatch(/both|PO-1|SO-1|C1/);
  });

  it('counts a SOAP refusal for scope as denied and a bad SOAP request as bad_request, neither as a failed login', async () => {
    const { app, ops } = await appWithMetrics();
    await app.inject(soap(statusDetailsRequest({ id: 'osnOnly' }))); // a login without the order_status scope
    await app.inject(soap(statusDetailsRequest({ queryType: '3', statusTimeStamp: undefined }))); // a field missing

    const scrape = (await ops.inject({ method: 'GET', url: '/metrics' })).body;
    const requests = (queryType: string, outcome: string) =>
      sample(scrape, `ossn_query_requests_total{interface="soap",operation="getOrderStatusDetails",query_type="${queryType}",outcome="${outcome}"}`);
    expect({ denied: requests('4', 'denied'), badRequest: requests('3', 'bad_request') }).toEqual({ denied: 1, badRequest: 1 });
    expect(sample(scrape, 'ossn_query_failed_logins_total{interface="soap"}')).toBe(0);
  });

  it('counts rate-limit refusals and answers cut at 5,000 purchase orders', async () => {
    const { app, ops, lookups } = await appWithMetrics(2);
    lookups.statuses = Array.from({ length: maxPurchaseOrdersPerAnswer }, (_, i) => ({ purchaseOrderNumber: `PO-${i}`, details: [] }));
    const auth = { authorization: basic('both', 'secret') };
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await app.inject({ method: 'GET', url: `${STATUS_URL}?queryType=4`, headers: auth })).statusCode);
    expect(codes).toEqual([200, 200, 429, 429]);

    const scrape = (await ops.inject({ method: 'GET', url: '/metrics' })).body;
    expect(sample(scrape, 'ossn_query_rate_limit_refusals_total{interface="json"}')).toBe(2);
    expect(sample(scrape, 'ossn_query_requests_total{interface="json",operation="getOrderStatus",query_type="4",outcome="rate_limited"}')).toBe(2);
    expect(sample(scrape, 'ossn_query_answers_cut_total{lookup="order_status"}')).toBe(2);
    expect(sample(scrape, 'ossn_query_answer_purchase_orders_bucket{le="5000",lookup="order_status"}')).toBe(2);
  });

  it('counts the partner requests only: no WSDL, XSD, endpoint page or OpenAPI document', async () => {
    const { app, ops } = await appWithMetrics();
    for (const url of [`${ORDER_STATUS_PATH}?wsdl`, ORDER_STATUS_PATH, `${ORDER_STATUS_PATH}/GetOrderStatusTypesRequest.xsd`, '/api/partners/v1/openapi.json']) {
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(200);
    }
    await app.inject(soap(statusDetailsRequest()));
    const scrape = (await ops.inject({ method: 'GET', url: '/metrics' })).body;
    const counted = scrape.split('\n').filter((line) => line.startsWith('ossn_query_requests_total{'));
    expect(counted).toEqual(['ossn_query_requests_total{interface="soap",operation="getOrderStatusDetails",query_type="4",outcome="ok"} 1']);
  });

  it('counts logins refused as busy, SOAP and JSON, as busy refusals', async () => {
    const { app, ops, authenticator } = await appWithMetrics();
    authenticator.failure = new PasswordChecksBusyError();
    expect((await app.inject({ method: 'GET', url: `${STATUS_URL}?queryType=4`, headers: { authorization: basic('both', 'secret') } })).statusCode).toBe(503);
    expect((await app.inject(soap(statusDetailsRequest()))).statusCode).toBe(503);
    const scrape = (await ops.inject({ method: 'GET', url: '/metrics' })).body;
    expect(sample(scrape, 'ossn_query_busy_refusals_total{interface="json"}')).toBe(1);
    expect(sample(scrape, 'ossn_query_busy_refusals_total{interface="soap"}')).toBe(1);
    expect(sample(scrape, 'ossn_query_requests_total{interface="json",operation="getOrderStatus",query_type="4",outcome="busy"}')).toBe(1);
  });
});

describe('a partner request that failed', () => {
  /** How the metrics count a JSON request whose handler threw `error`. */
  async function countedAs(error: Error) {
    const metrics = createQueryMetrics();
    const app = Fastify();
    await app.register(queryMetrics, { metrics });
    // A partner route names its labels in its config, as the versions' routes do.
    app.get(ORDER_STATUS_JSON_PATH, { config: { metrics: { interface: 'json', operation: 'getOrderStatus' } } }, async () => {
      throw error;
    });
    await app.inject({ method: 'GET', url: `${ORDER_STATUS_JSON_PATH}?queryType=4` });
    const total = async (counter: { get(): Promise<{ values: Array<{ value: number }> }> }) => (await counter.get()).values.reduce((sum, v) => sum + v.value, 0);
    const outcomes = (await metrics.requests.get()).values.filter((v) => v.value > 0).map((v) => v.labels.outcome);
    return { outcome: outcomes.join(), failedLogin: (await total(metrics.failedLogins)) > 0, rateLimited: (await total(metrics.rateLimitRefusals)) > 0 };
  }
  const refused = (outcome: string, failedLogin = false) => ({ outcome, failedLogin, rateLimited: outcome === 'rate_limited' });

  it('counts the failed logins of both protocols as denied and as failed logins', async () => {
    expect(await countedAs(new InvalidCredentialsError())).toEqual(refused('denied', true));
    expect(await countedAs(new SoapClientFault('Invalid id or password', ErrorCodes.LOGIN_INVALID))).toEqual(refused('denied', true));
  });

  it('goes by the code, not the text: the same words on a bad request are not a failed login', async () => {
    expect(await countedAs(new SoapClientFault('Invalid id or password'))).toEqual(refused('bad_request'));
    expect(await countedAs(new BadRequestError('Invalid id or password'))).toEqual(refused('bad_request'));
    expect(await countedAs(new Error('Invalid id or password'))).toEqual(refused('error'));
  });

  it('counts the other refusals as denied or rate_limited, none as a failed login', async () => {
    expect(await countedAs(new MissingCredentialsError())).toEqual(refused('denied'));
    expect(await countedAs(new ScopeForbiddenError('osn'))).toEqual(refused('denied'));
    expect(await countedAs(new SoapClientFault('Credential not permitted for scope: osn', ErrorCodes.SCOPE_FORBIDDEN))).toEqual(refused('denied'));
    expect(await countedAs(new RateLimitedError(1))).toEqual(refused('rate_limited'));
  });

  it('counts any other error by its status: 4xx as bad_request, else error', async () => {
    expect(await countedAs(Object.assign(new Error('Request body is too large'), { statusCode: 413 }))).toEqual(refused('bad_request'));
    expect(await countedAs(new LookupWaitTimeoutError('no lookup slot came free within 5000 ms'))).toEqual(refused('error'));
  });
});
