// The one date-time rule of partner requests, SOAP and JSON, 1.0.0 and 2.0.0 (request-date-time.ts).
import { describe, expect, it } from 'vitest';
import { parseRequestDateTime } from './request-date-time.js';
import { basic } from '../../test/support/json-requests.js';
import { ORDER_STATUS_URL, ORDER_STATUS_V2_URL, ossV2Request, post, serviceMessagesOf, statusDetailsRequest } from '../../test/support/soap-requests.js';
import { buildV2TestApp } from '../../test/support/test-apps.js';

describe('parseRequestDateTime', () => {
  it.each([
    ['2024-01-01T10:00:00Z', '2024-01-01T10:00:00.000Z'],
    ['2024-01-01T10:00:00', '2024-01-01T10:00:00.000Z'], // no zone: UTC
    ['2024-01-01T10:00:00.5', '2024-01-01T10:00:00.500Z'],
    ['2024-01-01T10:00:00+02:00', '2024-01-01T08:00:00.000Z'],
    ['2024-01-01T24:00:00Z', '2024-01-02T00:00:00.000Z'],
    ['2024-01-01 10:00:00z', '2024-01-01T10:00:00.000Z'], // RFC 3339: space, lowercase z
    ['2024-01-01t10:00:00Z', '2024-01-01T10:00:00.000Z'],
    ['2024-01-01T00:00:00+0130', '2023-12-31T22:30:00.000Z'],
    ['2024-01-01T00:00:00-05', '2024-01-01T05:00:00.000Z'],
  ])('reads %s as %s', (text, instant) => {
    expect(parseRequestDateTime(text)?.toISOString()).toBe(instant);
  });

  it.each(['2024-01-01', 'yesterday', '2024-02-30T00:00:00Z', '2024-01-01T25:00:00Z', '2016-12-31T23:59:60Z', '1714000000', '2024-01-01 10:00:00', '2024-01-01T10:00:00+15:00', ''])(
    'names no instant in %j',
    (text) => {
      expect(parseRequestDateTime(text)).toBeUndefined();
    },
  );
});

describe('the same forms on every interface (the real app)', () => {
  const stamps = ['2024-01-01T10:00:00Z', '2024-01-01T10:00:00', '2024-01-01 10:00:00Z', '2024-01-01T10:00:00+0200', 'yesterday', '2024-01-01 10:00:00'];

  it('SOAP and JSON, 1.0.0 and 2.0.0, accept and refuse the same timestamps', async () => {
    const { app } = await buildV2TestApp();
    try {
      const auth = { authorization: basic('both', 'secret') };
      const accepted = async (stamp: string) => {
        const soapV1 = await post(app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: '3', statusTimeStamp: stamp }));
        const jsonV1 = await app.inject({ url: `/api/partners/v1/orders/status?queryType=3&statusTimeStamp=${encodeURIComponent(stamp)}`, headers: auth });
        const soapV2 = await post(app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'lastUpdate', statusTimeStamp: stamp }));
        const jsonV2 = await app.inject({ url: `/api/partners/v2/orders/status?queryType=lastUpdate&statusTimeStamp=${encodeURIComponent(stamp)}`, headers: auth });
        return [soapV1.statusCode === 200, jsonV1.statusCode === 200, soapV2.statusCode === 200 && serviceMessagesOf(soapV2.body).length === 0, jsonV2.statusCode === 200];
      };
      const verdicts = await Promise.all(stamps.map(async (stamp) => [stamp, await accepted(stamp)] as const));
      expect(verdicts).toEqual(stamps.map((stamp) => [stamp, Array(4).fill(parseRequestDateTime(stamp) !== undefined)]));
    } finally {
      await app.close();
    }
  });
});
