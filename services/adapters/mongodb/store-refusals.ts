import { BSON, MongoBulkWriteError, MongoInvalidArgumentError, MongoServerError, type WriteError } from 'mongodb';

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

/** The per-document errors of a bulk write (the driver gives one or several). */
export function writeErrorsOf(error: MongoBulkWriteError): readonly WriteError[] {
  const { writeErrors } = error;
  return Array.isArray(writeErrors) ? writeErrors : [writeErrors as WriteError];
}

/**
 * True when the write failed because of what it writes, not because of the store: the store
 * refused a document (in an unordered bulk write, any one of them), or the driver could not
 * encode it (over the server's 16 MiB document limit, the driver refuses before sending).
 */
export function isRefusedDocument(error: unknown): boolean {
  if (error instanceof MongoBulkWriteError) return writeErrorsOf(error).some((e) => documentRefusedCodes.has(e.code));
  if (error instanceof MongoServerError) return typeof error.code === 'number' && documentRefusedCodes.has(error.code);
  return error instanceof BSON.BSONError || error instanceof MongoInvalidArgumentError;
}
