const oss = 'http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/';

/** What `ossn start` prints: the base URL, the demo credential, three commands to paste and the operators' ports. */
export function examples({
  baseUrl,
  id,
  password,
  operators,
}: {
  baseUrl: string;
  id: string;
  password: string;
  operators: { projector: string; query: string };
}): string {
  const soapBody =
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns="${oss}">` +
    `<soapenv:Body><ns:GetOrderStatusDetailsRequest><ns:wsVersion>1.0.0</ns:wsVersion><ns:id>${id}</ns:id>` +
    `<ns:password>${password}</ns:password><ns:queryType>4</ns:queryType>` +
    `<ns:statusTimeStamp>2000-01-01T00:00:00Z</ns:statusTimeStamp></ns:GetOrderStatusDetailsRequest></soapenv:Body></soapenv:Envelope>`;
  return `
ossn is running at ${baseUrl}
  demo credential: id ${id}, password ${password} (linked to clients CLIENT-001 and CLIENT-002)

Open orders as JSON:
  curl -s -u '${id}:${password}' '${baseUrl}/api/partners/v1/orders/status?queryType=4'

Open orders over SOAP:
  curl -s '${baseUrl}/api/promostandards/order-status' -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: getOrderStatusDetails' --data '${soapBody}'

The WSDLs, for a SOAP client:
  ${baseUrl}/api/promostandards/order-status?wsdl
  ${baseUrl}/api/promostandards/order-shipment-notification?wsdl

Metrics and probes (/metrics, /healthz, /readyz):
  projector      ${operators.projector}
  query service  ${operators.query}

Ctrl-C stops everything.
`;
}
