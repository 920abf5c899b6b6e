// GET /metrics (on the operators' port) after partner traffic: the counters show what that traffic did.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { sample } from '../../../test/support/metrics-scrape.js';
import { createQueryMetrics } from '../../plumbing/metrics/query-metrics.js';
import { buildOpsApp } from '../../plumbing/ops-port/ops-server.js';
import { buildApp } from '../app.js';
import { basic, SHIPMENTS_URL, STATUS_URL } from '../../../test/support/json-requests.js';
import { createRequestLimits } from '../rate-limit/index.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../test/support/fake-ports.js';
import { statusDetailsRequest } from '../../../test/support/soap-requests.js';
import { ORDER_STATUS_PATH } from '../soap/index.js';
import { maxPurchaseOrdersPerAnswer } from '../../adapters/mongodb/purchase-order-groups.js';

async function appWithMetrics(requestsPerMinute = 1_000) {
  const lookups = new FakeLookups();
  const metrics = createQueryMetrics();
  const app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups,
    authenticator: new FakeAuthenticator(ACCOUNTS),
    limits: createRequestLimits({ requestsPerMinute, loginFailuresPerMinute: 100 }),
    metrics,
  });
  const ops = await buildOpsApp({ logger: pino({ level: 'silent' }), registry: metrics.registry, readinessCheck: async () => {} });
  return { app, ops, lookups };
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
});
