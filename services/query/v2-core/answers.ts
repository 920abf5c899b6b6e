// What a read 2.x request (OSS and OSN 2.0.0, OSN 2.1.0) is answered, SOAP or JSON alike: the access
// step (../access/: the credential 105, the rate limit 429, the scope 104), then the lookup (a
// reference that finds nothing is told to the version, which answers 301 or 130). The lookup runs
// in one of the credential's slots, bound to the request (http/request-work.ts).
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, ShipmentNotificationV2View } from '../../../contracts/lookup-answers-v2.js';
import { cappedInOneBatch, readWhole, type OrderLookupsV2, type OrderStatusV2Query, type ShipmentQuery } from '../../../contracts/lookups.js';
import type { Credential, Scope } from '../../domain/credentials/credential.js';
import { accessFor, authorize as access, type Access, type AccessOptions } from '../access/authorize.js';
import { LoginRefused } from '../access/refusals.js';
import type { FastifyRequest } from 'fastify';
import type { RequestWork } from '../http/request-work.js';
import type { Degraded } from './fitting.js';
import { fieldTooLong } from '../protocol/field-length.js';
import type { ReadRequest, SentLogin } from './read-request.js';

export interface AnswerContext extends Access {
  lookups: OrderLookupsV2;
  work?: RequestWork | undefined;
}

/** What both 2.0.0 plugins (SOAP and JSON) are given to answer with. */
export interface V2ServiceOptions extends AccessOptions {
  lookups: OrderLookupsV2;
  /** What a request's lookup is bound to: cancelled with the request, one of the credential's slots. */
  requestWork?: ((request: FastifyRequest) => RequestWork) | undefined;
  /** Told of each value cut or left out to keep an answer valid (ossn_query_v2_degraded_total). */
  degraded?: Degraded | undefined;
}

/** One request's AnswerContext from the plugin's options. */
export const answerContext = (options: V2ServiceOptions, request: FastifyRequest): AnswerContext => ({
  ...accessFor(options, request),
  lookups: options.lookups,
  work: options.requestWork?.(request),
});

/** An answer, or the reference that found nothing (301). */
export type Found<T> = { found: T } | { notFound: 'referenceNumber' | 'issueId' };

/** The credential a login names, with `scope`; refused (105, 429, 104) as every 2.0.0 and 2.1.0 request. */
export function authorize(login: SentLogin, scope: Scope, context: AnswerContext): Promise<Credential> {
  // Never says which part failed (100 is never sent): unreadable, too long, unknown and wrong alike.
  if (login === 'unreadable' || fieldTooLong(login.id) || fieldTooLong(login.password)) throw new LoginRefused();
  return access(login, scope, context);
}

async function lookUp<T>(context: AnswerContext, credential: Credential, run: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  await context.work?.admitLookup(credential);
  return run(context.work?.signal);
}

const byReference = (query: OrderStatusV2Query) => query.queryType === 'poSearch' || query.queryType === 'soSearch';

export async function orderStatusAnswer({ login, query }: ReadRequest<OrderStatusV2Query>, context: AnswerContext): Promise<Found<CappedAnswer<OrderStatusV2View>>> {
  const credential = await authorize(login, 'order_status', context);
  // No stored number is longer: such a reference finds nothing, like an unknown one.
  if (byReference(query) && fieldTooLong(query.referenceNumber ?? '')) return { notFound: 'referenceNumber' };
  const answer = await lookUp(context, credential, (signal) => context.lookups.orderStatusV2(credential.clientIds, query, signal));
  return byReference(query) && answer.orders.length === 0 ? { notFound: 'referenceNumber' } : { found: answer };
}

export async function issueAnswer({ login, query }: ReadRequest<{ issueId: string }>, context: AnswerContext): Promise<Found<IssueView[]>> {
  const credential = await authorize(login, 'order_status', context);
  if (fieldTooLong(query.issueId)) return { notFound: 'issueId' };
  const issues = await lookUp(context, credential, (signal) => context.lookups.issues(credential.clientIds, query.issueId, signal));
  return issues.length === 0 ? { notFound: 'issueId' } : { found: issues };
}

/** OSS 2.0.0's getServiceMethods asks the credential and the order_status scope only. */
export async function serviceMethodsAnswer({ login }: ReadRequest<undefined>, context: AnswerContext): Promise<void> {
  await authorize(login, 'order_status', context);
}

/** The lookup an OSN version answers shipments from: 2.1.0's queryType 3 also counts changed shipReferences as news. */
export type ShipmentLookup = 'shipmentNotificationV2Batches' | 'shipmentNotificationV21Batches';

/**
 * The shipments answer, sent as it is read (docs/partners.md, "Large answers"). A reference (queryType
 * 1, 2) is read in one batch before anything is sent, so that one finding nothing is told to the
 * version (2.0.0 answers 301, 2.1.0 130).
 */
export async function shipmentAnswer(
  { login, query }: ReadRequest<ShipmentQuery>,
  context: AnswerContext,
  lookup: ShipmentLookup = 'shipmentNotificationV2Batches',
): Promise<Found<CappedBatches<ShipmentNotificationV2View>>> {
  const credential = await authorize(login, 'osn', context);
  const referenced = query.queryType === 1 || query.queryType === 2;
  if (referenced && fieldTooLong(query.referenceNumber ?? '')) return { notFound: 'referenceNumber' };
  const answer = await lookUp(context, credential, (signal) => context.lookups[lookup](credential.clientIds, query, signal));
  if (!referenced) return { found: answer };
  const whole = await readWhole(answer);
  return whole.orders.length === 0 ? { notFound: 'referenceNumber' } : { found: cappedInOneBatch(whole) };
}

