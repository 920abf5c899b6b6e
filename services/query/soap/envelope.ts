// SOAP 1.1 envelopes for answers and faults.
import { SOAP_ENVELOPE_NS } from './namespaces.js';
import { renderXml, type XmlNode } from './xml-tree.js';

export function envelopeTree(payload: XmlNode): XmlNode {
  return { 'soap:Envelope': { '@xmlns:soap': SOAP_ENVELOPE_NS, 'soap:Body': payload } };
}

export function renderEnvelope(payload: XmlNode): string {
  return renderXml(envelopeTree(payload));
}

export type FaultCode = 'soap:Client' | 'soap:Server';

/** faultcode and faultstring are unqualified in SOAP 1.1. */
export function renderFault(code: FaultCode, message: string): string {
  return renderEnvelope({ 'soap:Fault': { faultcode: code, faultstring: message } });
}
