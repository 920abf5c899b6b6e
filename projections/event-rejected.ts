import { ErrorCodes, OssnError } from '../contracts/errors/ossn-error.js';

/**
 * The event is valid by the contract but cannot apply to the read model (e.g. it names a location
 * that was never recorded). The projector sends it to the dead-letter topic with `reason`.
 */
export class EventRejectedError extends OssnError {
  override readonly name = 'EventRejectedError';

  constructor(readonly reason: string) {
    super(ErrorCodes.EVENT_REJECTED, reason);
  }
}

/** The `never` check of an exhaustive switch over event types. */
export function unhandledEvent(event: never): never {
  throw new Error(`unhandled event type ${String((event as { type?: unknown }).type)}`);
}
