// A 2.x SOAP request element as the request readers read it (read-request.ts).
import { childText, type XmlElement } from '../protocol/soap/parse-envelope.js';
import { parseRequestDateTime } from '../request-date-time.js';
import type { RequestSource } from './read-request.js';

/** Fields by local name in any namespace (node-soap and zeep put OSN's in different ones). */
export function soapSource(request: XmlElement): RequestSource {
  const field = (name: string) => childText(request, name);
  return {
    field,
    versioned: true,
    login: () => {
      const id = field('id');
      const password = field('password');
      return id === undefined || password === undefined ? undefined : { id, password };
    },
    parseDateTime: parseRequestDateTime,
  };
}
