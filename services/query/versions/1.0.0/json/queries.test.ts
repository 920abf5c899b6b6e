// queries.md, "Missing or bad arguments", JSON column: every case is a 400 naming the parameter,
// and nothing is looked up. Also what the valid arguments become.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryHasPassword } from '../../../protocol/json/url-password.js';
import { basic, get, SHIPMENTS_URL, STATUS_URL } from '../../../../../test/support/json-requests.js';
import { buildJsonTestApp, type TestApp } from '../../../../../test/support/test-apps.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildJsonTestApp();
});
afterAll(() => t.app.close());
beforeEach(() => {
  t.lookups.statusCalls.length = 0;
  t.lookups.shipmentCalls.length = 0;
  t.authenticator.calls.length = 0;
});

const long = 'x'.repeat(65);

async function expect400(url: string, error: string, headers?: Record<string, string>) {
  const res = await get(t.app, url, headers);
  expect(res.statusCode).toBe(400);
  expect(res.json()).toEqual({ error });
  expect(t.lookups.statusCalls).toEqual([]);
  expect(t.lookups.shipmentCalls).toEqual([]);
}

describe.each([
  ['status', STATUS_URL, 'statusTimeStamp'],
  ['shipments', SHIPMENTS_URL, 'shipmentDateTimeStamp'],
])('%s: 400 naming the parameter', (_name, url, stampField) => {
  it.each(['1', '2'])('referenceNumber missing or empty for queryType %s', async (queryType) => {
    await expect400(`${url}?queryType=${queryType}`, 'Missing query parameter: referenceNumber (required for queryType 1 and 2)');
    await expect400(`${url}?queryType=${queryType}&referenceNumber=`, 'Empty query parameter: referenceNumber (required for queryType 1 and 2)');
  });

  it('timestamp missing for queryType 3', async () => {
    await expect400(`${url}?queryType=3`, `Missing query parameter: ${stampField} (required for queryType 3)`);
  });

  it.each(['2024-01-01', 'yesterday', '2024-02-30T00:00:00Z', '2024-01-01T25:00:00Z', '2016-12-31T23:59:60Z', '1714000000'])('timestamp %s is no ISO 8601 date-time', async (stamp) => {
    await expect400(`${url}?queryType=3&${stampField}=${encodeURIComponent(stamp)}`, `Invalid query parameter: ${stampField} (not an ISO 8601 date-time (without a time zone: UTC))`);
  });

  it('reads a timestamp without a time zone as UTC, as the SOAP endpoints do', async () => {
    const res = await get(t.app, `${url}?queryType=3&${stampField}=2024-01-01T10:00:00`);
    expect(res.statusCode).toBe(200);
    const [call] = [...t.lookups.statusCalls, ...t.lookups.shipmentCalls];
    expect(call?.query).toMatchObject({ [stampField]: new Date('2024-01-01T10:00:00Z') });
  });

  it('referenceNumber over 64 characters', async () => {
    await expect400(`${url}?queryType=1&referenceNumber=${long}`, 'Query parameter too long: referenceNumber (at most 64 characters)');
    // 64 characters, counted as characters, not bytes, are fine.
    expect((await get(t.app, `${url}?queryType=1&referenceNumber=${encodeURIComponent('é'.repeat(64))}`)).statusCode).toBe(200);
  });

  it.each([
    ['id', basic(long, 'secret')],
    ['password', basic('both', long)],
  ])('credential %s over 64 characters', async (field, authorization) => {
    await expect400(`${url}?queryType=4`, `Credential field too long: ${field} (at most 64 characters)`, { authorization });
    expect(t.authenticator.calls).toEqual([]);
  });

  it.each(['abc', '1.5', '', 'true'])('queryType %j is not an integer', async (queryType) => {
    await expect400(`${url}?queryType=${queryType}`, 'Invalid query parameter: queryType (not an integer)');
  });

  it('queryType missing', async () => {
    await expect400(`${url}?referenceNumber=PO-1`, 'Missing query parameter: queryType');
  });

  it('a parameter given twice', async () => {
    await expect400(`${url}?queryType=1&referenceNumber=A&referenceNumber=B`, 'Invalid query parameter: referenceNumber (must be a single string)');
  });

  it.each(['password=secret', 'Password=secret', 'PASSWORD', 'pass%77ord=x', 'password%5B%5D=x', 'queryType=4&password='])(
    'a password in the URL (%s): refused before authentication, lookup or validation',
    async (query) => {
      await expect400(
        `${url}?${query}`,
        'Query parameter not allowed: password — send the credential with HTTP Basic auth, never in the URL',
      );
      expect(t.authenticator.calls).toEqual([]);
    },
  );
});

describe('valid arguments', () => {
  it('pass to the lookups as the SOAP side passes them', async () => {
    await get(t.app, `${STATUS_URL}?queryType=1&referenceNumber=PO-1`);
    await get(t.app, `${STATUS_URL}?queryType=2&referenceNumber=SO-1&statusTimeStamp=2024-01-01T00:00:00Z`);
    await get(t.app, `${STATUS_URL}?queryType=3&statusTimeStamp=2024-05-01T12:00:00%2B02:00&referenceNumber=ignored`);
    await get(t.app, `${STATUS_URL}?queryType=4&unknown=ignored`);
    expect(t.lookups.statusCalls.map((c) => c.query)).toEqual([
      { queryType: 1, referenceNumber: 'PO-1' },
      { queryType: 2, referenceNumber: 'SO-1' },
      { queryType: 3, statusTimeStamp: new Date('2024-05-01T10:00:00Z') },
      { queryType: 4 },
    ]);
    await get(t.app, `${SHIPMENTS_URL}?queryType=1&referenceNumber=PO-1`);
    await get(t.app, `${SHIPMENTS_URL}?queryType=3&shipmentDateTimeStamp=2024-05-01T12:00:00.5Z`);
    expect(t.lookups.shipmentCalls.map((c) => c.query)).toEqual([
      { queryType: 1, referenceNumber: 'PO-1' },
      { queryType: 3, shipmentDateTimeStamp: new Date('2024-05-01T12:00:00.500Z') },
    ]);
  });

  it.each([
    [STATUS_URL, ['0', '5', '-1', '99999999999'], 'orders'],
    [SHIPMENTS_URL, ['0', '4', '5'], 'shipments'],
  ])('%s: other queryTypes answer an empty list without a lookup', async (url, queryTypes, key) => {
    t.lookups.statuses = [{ purchaseOrderNumber: 'PO', details: [] }];
    for (const queryType of queryTypes) {
      const res = await get(t.app, `${url}?queryType=${queryType}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ [key]: [] });
    }
    expect([...t.lookups.statusCalls, ...t.lookups.shipmentCalls]).toEqual([]);
    t.lookups.statuses = [];
  });
});

describe('helpers', () => {
  it('find a password only among the query parameter names', () => {
    expect(queryHasPassword('/x?a=1&password=2')).toBe(true);
    expect(queryHasPassword('/x?a=password')).toBe(false);
    expect(queryHasPassword('/password')).toBe(false);
    expect(queryHasPassword('/x?passwords=1')).toBe(false);
    expect(queryHasPassword('/x?%zz&+password+=1')).toBe(true);
  });
});
