// The SOAP 1.1 envelope's namespace, the one every version's answers are written in.
export const SOAP_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
