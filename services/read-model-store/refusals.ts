import { BSON, MongoInvalidArgumentError, MongoServerError } from 'mongodb';

/**
 * Server error codes that refuse the document itself, whatever the server's health: retrying the
 * same write can never succeed. Any other failure (network, timeout, election, a server error not
 * listed) is counted as the server's and retried without limit, so that nothing is given up on a
 * guess.
 */
const documentRefusedCodes = new Set([
  2, // BadValue
  52, // DollarPrefixedFieldName
  56, // EmptyFieldName
  57, // DottedFieldName
  121, // DocumentValidationFailure
  10334, // BSONObjectTooLarge
  17419, // the document after the update is larger than the limit
  17420, // same, for an upsert
]);

/**
 * True when the write failed because of what it writes, not because of the store: the store
 * refused the document, or the driver could not encode it. FerretDB 1.24 (SQLite) has no size
 * limit of its own; there the driver's encoder refuses a command over its 17 MiB buffer with a
 * RangeError, where MongoDB answers BSONObjectTooLarge.
 */
export function isRefusedDocument(error: unknown): boolean {
  if (error instanceof MongoServerError) return typeof error.code === 'number' && documentRefusedCodes.has(error.code);
  return error instanceof BSON.BSONError || error instanceof MongoInvalidArgumentError || error instanceof RangeError;
}
