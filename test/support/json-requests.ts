// JSON requests as partners send them.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

export const STATUS_URL = '/api/partners/v1/orders/status';
export const SHIPMENTS_URL = '/api/partners/v1/orders/shipments';

export const basic = (id: string, password: string) => `Basic ${Buffer.from(`${id}:${password}`).toString('base64')}`;

/** A GET as partner `both` unless other headers are given. */
export function get(app: FastifyInstance, url: string, headers: Record<string, string> = { authorization: basic('both', 'secret') }): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers });
}
