import { ErrorCodes, OssnError } from '../../contracts/errors/ossn-error.js';

/** A mistake in the command line: printed as it is, without a stack trace, exit code 2. */
export class UsageError extends OssnError {
  constructor(message: string) {
    super(ErrorCodes.USAGE, message);
    this.name = 'UsageError';
  }
}
