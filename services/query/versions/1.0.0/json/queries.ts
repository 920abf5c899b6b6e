// The JSON reading of a request's arguments: the query string the schema has validated, its
// date-times by the one rule of ../../../request-date-time.ts; which queryType needs what is decided in
// ../order-queries.ts.
import { orderStatusQuery, shipmentQuery, type ArgumentDialect } from '../order-queries.js';
import { parseRequestDateTime } from '../../../request-date-time.js';
import { BadRequestError, JSON_DATE_TIME_FORM } from './json-errors.js';
import type { ShipmentsQuerystring, StatusQuerystring } from './schemas.js';

const JSON_ARGUMENTS: ArgumentDialect = {
  argument: 'query parameter',
  dateTimeForm: JSON_DATE_TIME_FORM,
  parseDateTime: parseRequestDateTime,
  refuse: (message) => new BadRequestError(message),
};

export const statusRequest = (q: StatusQuerystring) => orderStatusQuery(q, JSON_ARGUMENTS);

export const shipmentsRequest = (q: ShipmentsQuerystring) => shipmentQuery(q, JSON_ARGUMENTS);
