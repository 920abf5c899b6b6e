// The OpenAPI 3.1 descriptions of the JSON routes, v1 and v2, as a partner's tooling reads them:
// served without credentials, valid against the official OpenAPI 3.1 schema, holding exactly that
// version's routes, every enumerated value an enum (the values the routes accept), the rate-limit
// header fields on every answer, and answers the routes give valid against the schemas documented.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusIds } from '../../../contracts/status-types.js';
import { issueDetailTypes, orderStatusQueryTypes, statusWords } from '../../../contracts/v2-vocabulary.js';
import { basic } from '../../../test/support/json-requests.js';
import { BASE_URL, buildV2TestApp, type V2TestApp } from '../../../test/support/test-apps.js';
import { FULL_ORDER, OPEN_ISSUE, SHIPMENT } from '../../../test/support/v2-views.js';
import { FULL_STATUS, SHIPMENT as SHIPMENT_V1 } from '../../../test/fixtures/views.js';

interface Operation {
  operationId: string;
  parameters: { name: string; in: string; required: boolean; schema: { enum?: unknown[] } }[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: object }> }>;
}
interface Spec {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  security: unknown;
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

const DOCUMENTS = { v1: '/api/partners/v1/openapi.json', v2: '/api/partners/v2/openapi.json' } as const;
const auth = { authorization: basic('both', 'secret') };

let t: V2TestApp;
const specs = {} as Record<keyof typeof DOCUMENTS, Spec>;
beforeAll(async () => {
  // The whole app, so that the SOAP routes are there to be left out.
  t = await buildV2TestApp();
  t.lookups.statuses = [{ clientId: 'C1', order: FULL_ORDER }];
  t.lookups.issueRecords = [{ clientId: 'C1', issue: OPEN_ISSUE }];
  t.lookups.notifications = [{ clientId: 'C1', notification: SHIPMENT }];
  t.lookups.more = true; // answers carry the Warning 200 too
  for (const [version, url] of Object.entries(DOCUMENTS)) {
    const res = await t.app.inject({ url });
    expect(res.statusCode, url).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    specs[version as keyof typeof DOCUMENTS] = res.json<Spec>();
  }
});
afterAll(() => t.app.close());

const operation = (version: keyof typeof DOCUMENTS, path: string) => specs[version].paths[path]!['get']!;
const enumOf = (op: Operation, name: string) => op.parameters.find((p) => p.name === name)?.schema.enum;

describe('the OpenAPI descriptions (v1 and v2)', () => {
  it('are served without credentials, valid OpenAPI 3.1 against the official schema, with Basic auth', async () => {
    for (const [version, spec] of Object.entries(specs)) {
      const validator = new Validator();
      expect(await validator.validate(spec as unknown as Record<string, unknown>), version).toEqual({ valid: true });
      expect(validator.version, version).toBe('3.1');
      expect(spec.openapi).toBe('3.1.0');
      expect(spec.info.version).toBe(version === 'v1' ? '1.0.0' : '2.0.0');
      expect(spec.servers).toEqual([{ url: BASE_URL }]);
      expect(spec.components.securitySchemes).toEqual({ basicAuth: { type: 'http', scheme: 'basic' } });
      expect(spec.security).toEqual([{ basicAuth: [] }]);
    }
  });

  it('are checked for real: a description OpenAPI 3.1 refuses fails the same check', async () => {
    const broken = structuredClone(specs.v2);
    (broken.paths['/api/partners/v2/issues']!['get']!.parameters[0] as Record<string, unknown>)['in'] = 'body';
    expect((await new Validator().validate(broken as unknown as Record<string, unknown>)).valid).toBe(false);
  });

  it('hold each version\'s JSON routes and nothing else, each a route of the app', () => {
    expect(Object.keys(specs.v1.paths).sort()).toEqual(['/api/partners/v1/orders/shipments', '/api/partners/v1/orders/status']);
    expect(Object.keys(specs.v2.paths).sort()).toEqual(['/api/partners/v2/issues', '/api/partners/v2/orders/shipments', '/api/partners/v2/orders/status']);
    for (const spec of Object.values(specs)) {
      for (const [path, methods] of Object.entries(spec.paths)) {
        expect(Object.keys(methods)).toEqual(['get']);
        expect(t.app.hasRoute({ method: 'GET', url: path }), path).toBe(true);
      }
    }
    const v1Status = operation('v1', '/api/partners/v1/orders/status');
    expect(v1Status.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['queryType', 'query', true],
      ['referenceNumber', 'query', false],
      ['statusTimeStamp', 'query', false],
    ]);
    expect(operation('v2', '/api/partners/v2/orders/status').parameters.map((p) => p.name)).toEqual(['queryType', 'referenceNumber', 'statusTimeStamp', 'returnIssueDetailType', 'returnProductDetail']);
    expect(operation('v2', '/api/partners/v2/orders/shipments').parameters.map((p) => p.name)).toEqual(['queryType', 'referenceNumber', 'shipmentDateTimestamp']);
  });

  it('list queryType and every enumerated value as enums', () => {
    expect(enumOf(operation('v1', '/api/partners/v1/orders/status'), 'queryType')).toEqual([1, 2, 3, 4]);
    expect(enumOf(operation('v1', '/api/partners/v1/orders/shipments'), 'queryType')).toEqual([1, 2, 3]);
    const v2Status = operation('v2', '/api/partners/v2/orders/status');
    expect(enumOf(v2Status, 'queryType')).toEqual([...orderStatusQueryTypes]);
    expect(enumOf(v2Status, 'returnIssueDetailType')).toEqual([...issueDetailTypes]);
    expect(enumOf(operation('v2', '/api/partners/v2/orders/shipments'), 'queryType')).toEqual(['1', '2', '3']);

    // Every enumerated property of the bodies, by name, and what v1's statusID and v2's status list.
    const enums = new Map<string, unknown[]>();
    const walk = (node: unknown, name = ''): void => {
      if (Array.isArray(node)) return node.forEach((n) => walk(n, name));
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      if (Array.isArray(record['enum'])) enums.set(name, record['enum']);
      // A parameter: its name, its schema.
      if (typeof record['name'] === 'string' && record['schema']) return walk(record['schema'], record['name']);
      for (const [key, value] of Object.entries(record)) walk(value, key === 'properties' || key === 'items' ? name : key);
    };
    walk(specs.v1.paths);
    walk(specs.v2.paths);
    expect([...enums.keys()].sort()).toEqual(
      [
        'contactType', 'dimUOM', 'issueCategory', 'issueStatus', 'preProductionProof', 'queryType', 'returnIssueDetailType', 'returnProductDetail',
        'severity', 'shipmentDestinationType', 'status', 'statusID', 'statusName', 'uom', 'weightUOM',
      ].sort(),
    );
    expect(enums.get('statusID')).toEqual([...statusIds]);
    expect(enums.get('status')).toEqual([...statusWords]);
  });

  it('list exactly the values the v2 routes accept', async () => {
    const code = async (url: string) => {
      const res = await t.app.inject({ url, headers: auth });
      return res.statusCode === 200 ? 'ok' : (res.json<{ ServiceMessageArray: { code: number }[] }>().ServiceMessageArray[0]?.code ?? res.statusCode);
    };
    const status = (params: string) => code(`/api/partners/v2/orders/status?${params}`);
    const v2Status = operation('v2', '/api/partners/v2/orders/status');
    const accepted: Record<string, unknown> = {};
    for (const queryType of enumOf(v2Status, 'queryType') as string[]) {
      accepted[queryType] = await status(`queryType=${queryType}&referenceNumber=PO-FULL&statusTimeStamp=2024-01-01T00:00:00Z`);
    }
    // transactionId is the XSD's, answered 125 (not supported here): documented as such.
    expect(accepted).toEqual({ poSearch: 'ok', soSearch: 301, lastUpdate: 'ok', allOpen: 'ok', allOpenIssues: 'ok', transactionId: 125 });
    expect(await status('queryType=everything')).toBe(300);
    for (const value of enumOf(v2Status, 'returnIssueDetailType') as string[]) expect(await status(`queryType=allOpen&returnIssueDetailType=${value}`)).toBe('ok');
    expect(await status('queryType=allOpen&returnIssueDetailType=some')).toBe(125);
    for (const value of enumOf(v2Status, 'returnProductDetail') as string[]) expect(await status(`queryType=allOpen&returnProductDetail=${value}`)).toBe('ok');
    expect(await status('queryType=allOpen&returnProductDetail=yes')).toBe(125);
    for (const queryType of enumOf(operation('v2', '/api/partners/v2/orders/shipments'), 'queryType') as string[]) {
      expect(await code(`/api/partners/v2/orders/shipments?queryType=${queryType}&referenceNumber=PO-1&shipmentDateTimestamp=2024-01-01`)).not.toBe(300);
    }
    expect(await code('/api/partners/v2/orders/shipments?queryType=4')).toBe(300);
  });

  it('document the rate-limit header fields on every answer, Retry-After on the 429, WWW-Authenticate on the 401', () => {
    for (const spec of Object.values(specs)) {
      for (const op of Object.values(spec.paths).map((methods) => methods['get']!)) {
        expect(Object.keys(op.responses).sort(), op.operationId).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429', '500']));
        for (const [status, response] of Object.entries(op.responses)) {
          expect(Object.keys(response.headers ?? {}), `${op.operationId} ${status}`).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
        }
        expect(op.responses['429']!.headers).toHaveProperty('Retry-After');
        expect(op.responses['401']!.headers).toHaveProperty('WWW-Authenticate');
      }
    }
  });

  it('describe what the routes answer: each answer, 200 and refusals, valid against its documented schema', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    t.lookupsV1.statuses = [FULL_STATUS];
    t.lookupsV1.notifications = [SHIPMENT_V1];
    const requests: [keyof typeof DOCUMENTS, string, string, Record<string, string>][] = [
      ['v1', '/api/partners/v1/orders/status', 'queryType=4', auth],
      ['v1', '/api/partners/v1/orders/shipments', `queryType=1&referenceNumber=${SHIPMENT_V1.purchaseOrderNumber}`, auth],
      ['v1', '/api/partners/v1/orders/status', 'queryType=3&statusTimeStamp=yesterday', auth],
      ['v1', '/api/partners/v1/orders/status', 'queryType=4', { authorization: basic('both', 'wrong') }],
      ['v2', '/api/partners/v2/orders/status', 'queryType=allOpen&returnIssueDetailType=allIssues&returnProductDetail=true', auth],
      ['v2', '/api/partners/v2/issues', `issueId=${OPEN_ISSUE.issueId}`, auth],
      ['v2', '/api/partners/v2/orders/shipments', `queryType=1&referenceNumber=${SHIPMENT.purchaseOrderNumber}`, auth],
      ['v2', '/api/partners/v2/orders/shipments', 'queryType=4', auth],
      ['v2', '/api/partners/v2/issues', 'issueId=none', auth],
    ];
    const seen = new Set<string>();
    for (const [version, path, query, headers] of requests) {
      const res = await t.app.inject({ url: `${path}?${query}`, headers });
      const documented = operation(version, path).responses[String(res.statusCode)];
      expect(documented, `${path}?${query} answered ${res.statusCode}`).toBeDefined();
      const schema = documented!.content!['application/json']!.schema;
      const body = res.json<Record<string, unknown>>();
      expect(ajv.validate(schema, body) ? [] : ajv.errors, `${path}?${query} (${res.statusCode})`).toEqual([]);
      seen.add(`${version} ${res.statusCode} ${Object.keys(body).join(',')}`);
    }
    // The bodies held something to check: full answers with their warning, and refusals.
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'v1 200 orders',
        'v1 200 shipments',
        'v1 400 error',
        'v1 401 error',
        'v2 200 OrderStatusArray,ServiceMessageArray',
        'v2 200 IssueArray',
        'v2 200 OrderShipmentNotificationArray,ServiceMessageArray',
        'v2 400 ServiceMessageArray',
        'v2 404 ServiceMessageArray',
      ]),
    );
  });
});
