import { OPENAPI_PATH } from '../query/versions/1.0.0/json/plugin.js';
import { OSS_NS as oss } from '../query/versions/1.0.0/namespaces.js';
import { OPENAPI_V2_PATH } from '../query/versions/2.0.0/json/plugin.js';
import { OSS_V2_NS as ossV2 } from '../query/versions/2.0.0/namespaces.js';

/** What `ossn start` prints: the base URL, the demo credential, three commands to paste and the operators' ports. */
export function examples({
  baseUrl,
  id,
  password,
  operators,
  now,
}: {
  baseUrl: string;
  id: string;
  password: string;
  operators: { projector: string; query: string };
  /** When the banner is printed: the "previous poll" of the polling example. */
  now: Date;
}): string {
  const previousPoll = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const soapBody =
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns="${oss}">` +
    `<soapenv:Body><ns:GetOrderStatusDetailsRequest><ns:wsVersion>1.0.0</ns:wsVersion><ns:id>${id}</ns:id>` +
    `<ns:password>${password}</ns:password><ns:queryType>4</ns:queryType>` +
    `<ns:statusTimeStamp>2000-01-01T00:00:00Z</ns:statusTimeStamp></ns:GetOrderStatusDetailsRequest></soapenv:Body></soapenv:Envelope>`;
  const soapV2Body =
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns="${ossV2}" xmlns:shar="${ossV2}SharedObjects/">` +
    `<soapenv:Body><ns:GetOrderStatusRequest><shar:wsVersion>2.0.0</shar:wsVersion><shar:id>${id}</shar:id>` +
    `<shar:password>${password}</shar:password><shar:queryType>allOpen</shar:queryType>` +
    `<shar:returnIssueDetailType>allIssues</shar:returnIssueDetailType><shar:returnProductDetail>true</shar:returnProductDetail>` +
    `</ns:GetOrderStatusRequest></soapenv:Body></soapenv:Envelope>`;
  return `
ossn is running at ${baseUrl}
  demo credential: id ${id}, password ${password} (linked to clients CLIENT-001 and CLIENT-002)

Open orders as JSON:
  curl -s -u '${id}:${password}' '${baseUrl}/api/partners/v1/orders/status?queryType=4'

What partners run all day, changes since their previous poll (queryType 3, here since this start;
the recipe, full answers and every error: docs/partners.md):
  curl -s -u '${id}:${password}' '${baseUrl}/api/partners/v1/orders/status?queryType=3&statusTimeStamp=${previousPoll}'
  curl -s -u '${id}:${password}' '${baseUrl}/api/partners/v1/orders/shipments?queryType=3&shipmentDateTimeStamp=${previousPoll}'

Open orders over SOAP:
  curl -s '${baseUrl}/api/promostandards/order-status' -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: getOrderStatusDetails' --data '${soapBody}'

PromoStandards 2.0.0, open orders with their issues, product lines and contacts, as JSON and over SOAP:
  curl -s -u '${id}:${password}' '${baseUrl}/api/partners/v2/orders/status?queryType=allOpen&returnIssueDetailType=allIssues&returnProductDetail=true'
  curl -s '${baseUrl}/api/promostandards/order-status/2.0.0' -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: getOrderStatus' --data '${soapV2Body}'

The JSON endpoints described in OpenAPI 3.1, for a client generator (1.0.0, then 2.0.0):
  ${baseUrl}${OPENAPI_PATH}
  ${baseUrl}${OPENAPI_V2_PATH}

The WSDLs, for a SOAP client (1.0.0, then 2.0.0):
  ${baseUrl}/api/promostandards/order-status?wsdl
  ${baseUrl}/api/promostandards/order-shipment-notification?wsdl
  ${baseUrl}/api/promostandards/order-status/2.0.0?wsdl
  ${baseUrl}/api/promostandards/order-shipment-notification/2.0.0?wsdl

Metrics and probes (/metrics, /healthz, /readyz):
  projector      ${operators.projector}
  query service  ${operators.query}

Ctrl-C stops everything.
`;
}
