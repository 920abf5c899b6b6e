// The request metrics see the 2.0.0 endpoints as they see 1.0.0's: an in-band refusal counts by its
// code (a failed login as denied and as a failed login), a 999 as an error, an answer as ok.
import { describe, expect, it } from 'vitest';
import { sample } from '../../../../test/support/metrics-scrape.js';
import { basic, STATUS_URL } from '../../../../test/support/json-requests.js';
import { ORDER_STATUS_URL, ORDER_STATUS_V2_URL, osnV2Request, ossV2Request, post, SHIPMENT_V2_URL, statusDetailsRequest } from '../../../../test/support/soap-requests.js';
import { buildV2TestApp } from '../../../../test/support/test-apps.js';
import { createQueryMetrics } from '../../../plumbing/metrics/query-metrics.js';

describe('request metrics of the 2.0.0 endpoints', () => {
  it('count outcomes, operations, queryTypes and failed logins', async () => {
    const metrics = createQueryMetrics();
    const t = await buildV2TestApp({ metrics });
    try {
      await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'allOpen' }));
      await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'allOpen', password: 'wrong' }));
      await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'lastUpdate' }));
      await t.app.inject({ method: 'GET', url: '/api/partners/v2/issues?issueId=X', headers: { authorization: basic('both', 'wrong') } });
      t.lookups.failure = new Error('store down');
      await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetIssueRequest', { issueId: 'X' }));
      const text = await metrics.registry.metrics();
      const requests = (labels: string) => sample(text, `ossn_query_requests_total{${labels}}`);
      expect(requests('interface="soap",operation="v2/getOrderStatus",query_type="allOpen",outcome="ok"')).toBe(1);
      expect(requests('interface="soap",operation="v2/getOrderStatus",query_type="allOpen",outcome="denied"')).toBe(1);
      expect(requests('interface="soap",operation="v2/getOrderStatus",query_type="lastUpdate",outcome="bad_request"')).toBe(1);
      expect(requests('interface="json",operation="v2/getIssue",query_type="none",outcome="denied"')).toBe(1);
      expect(requests('interface="soap",operation="v2/getIssue",query_type="none",outcome="error"')).toBe(1);
      expect(sample(text, 'ossn_query_failed_logins_total{interface="soap"}')).toBe(1);
      expect(sample(text, 'ossn_query_failed_logins_total{interface="json"}')).toBe(1);
    } finally {
      await t.app.close();
    }
  });

  it('count a lookup that found nothing as ok on SOAP and JSON alike, as 1.0.0 counts an unknown reference', async () => {
    const metrics = createQueryMetrics();
    const t = await buildV2TestApp({ metrics });
    const auth = { authorization: basic('both', 'secret') };
    try {
      // 1.0.0: an unknown reference is an empty answer (200), counted ok on both interfaces.
      await post(t.app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: '1', referenceNumber: 'PO-NONE' }));
      await t.app.inject({ method: 'GET', url: `${STATUS_URL}?queryType=1&referenceNumber=PO-NONE`, headers: auth });
      // 2.0.0: 301 in-band on SOAP, 404 on the JSON twins; the same outcome.
      await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'poSearch', referenceNumber: 'PO-NONE' }));
      await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetIssueRequest', { issueId: 'ISS-NONE' }));
      await post(t.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '1', referenceNumber: 'PO-NONE' }));
      const notFound = await t.app.inject({ method: 'GET', url: '/api/partners/v2/orders/status?queryType=poSearch&referenceNumber=PO-NONE', headers: auth });
      await t.app.inject({ method: 'GET', url: '/api/partners/v2/issues?issueId=ISS-NONE', headers: auth });
      await t.app.inject({ method: 'GET', url: '/api/partners/v2/orders/shipments?queryType=1&referenceNumber=PO-NONE', headers: auth });
      expect(notFound.statusCode).toBe(404);
      const text = await metrics.registry.metrics();
      const requests = (labels: string) => sample(text, `ossn_query_requests_total{${labels}}`);
      expect(requests('interface="soap",operation="getOrderStatusDetails",query_type="1",outcome="ok"')).toBe(1);
      expect(requests('interface="json",operation="getOrderStatus",query_type="1",outcome="ok"')).toBe(1);
      for (const iface of ['soap', 'json']) {
        expect(requests(`interface="${iface}",operation="v2/getOrderStatus",query_type="poSearch",outcome="ok"`)).toBe(1);
        expect(requests(`interface="${iface}",operation="v2/getIssue",query_type="none",outcome="ok"`)).toBe(1);
      }
      expect(requests('interface="soap",operation="v2/getOrderShipmentNotification",query_type="1",outcome="ok"')).toBe(1);
      expect(requests('interface="json",operation="v2/getShipments",query_type="1",outcome="ok"')).toBe(1);
      expect(text).not.toMatch(/outcome="bad_request"/);
    } finally {
      await t.app.close();
    }
  });
});
