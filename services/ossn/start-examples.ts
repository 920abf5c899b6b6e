import { OPENAPI_PATH } from '../query/versions/1.0.0/json/plugin.js';
import { OSS_NS as oss } from '../query/versions/1.0.0/namespaces.js';
import { OPENAPI_V2_PATH } from '../query/versions/2.0.0/json/plugin.js';
import { OSS_V2_NS as ossV2 } from '../query/versions/2.0.0/namespaces.js';

/**
 * The trial receiver's address with its defaults (`npm run receiver`: scripts/receiver/cli.ts, its
 * path RECEIVER_PATH; docs/operations.md, "A receiver to try push with"), and the id it expects.
 */
export const trialReceiver = { url: 'http://127.0.0.1:8090/osn/2.1.0', id: 'ossn' } as const;

/** How to push to the trial receiver: with the secret key given or, first, how to make one. */
function pushExamples(id: string, { keyGiven, store }: PushExamples, pusherRunning: boolean): string {
  const steps = `run the trial receiver in another terminal,
  npm run receiver
and, in a third with the same OSSN_SECRET_KEY as this start, subscribe it to the demo credential's
notifications (an empty line: the trial receiver asks no password; --from: the demo's shipments so far too):
  echo | ${store} npx ossn push add ${id} --url ${trialReceiver.url} --id ${trialReceiver.id} --from 2000-01-01T00:00:00Z`;
  const head = 'Push ship notifications (OSN 2.1.0) to a receiver of your own:';
  if (!keyGiven) {
    return `${head} push needs OSSN_SECRET_KEY, the key that seals the
receivers' passwords, set for this start and for ossn push alike. Make one (keep it) and start again with it,
  export OSSN_SECRET_KEY="$(openssl rand -base64 32)"
then ${steps}`;
  }
  const pusher = pusherRunning ? 'The pusher runs in this process' : 'The pusher starts in this process within 5 s of the first subscription';
  return `${head} ${steps}
${pusher} (ossn push list; ossn status shows its deliveries).`;
}

export interface PushExamples {
  /** Whether a secret key was given (OSSN_SECRET_KEY or OSSN_SECRET_KEY_FILE): push runs here only with one. */
  keyGiven: boolean;
  /** The variables `ossn push add` in another terminal needs to reach this start's store (`MONGODB_URI='…'`). */
  store: string;
}

/** What `ossn start` prints: the base URL, the demo credential, three commands to paste, how to try push, and the operators' ports. */
export function examples({
  baseUrl,
  id,
  password,
  operators,
  push,
  now,
}: {
  baseUrl: string;
  id: string;
  password: string;
  /** The pusher's when it runs in this process. */
  operators: { projector: string; query: string; pusher?: string };
  push: PushExamples;
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

${pushExamples(id, push, operators.pusher !== undefined)}

Metrics and probes (/metrics, /healthz, /readyz):
  projector      ${operators.projector}
  query service  ${operators.query}${operators.pusher === undefined ? '' : `\n  pusher         ${operators.pusher}`}

Ctrl-C stops everything.
`;
}
