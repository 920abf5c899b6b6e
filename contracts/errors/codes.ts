// The one list of the codes our own errors carry: a stable `code` property that logs show (pino
// writes an error's own properties, `err.code` among them) and that code branches on, never the
// message text, which may be reworded. One line each: what the code means.
export const ErrorCodes = {
  /** The environment's settings are missing or invalid; the message lists every problem. */
  CONFIG_INVALID: 'OSSN_CONFIG_INVALID',
  /** A mistake in an `ossn` command line (exit code 2). */
  USAGE: 'OSSN_USAGE',
  /** A credential with this id exists already. */
  CREDENTIAL_EXISTS: 'OSSN_CREDENTIAL_EXISTS',
  /** No credential has this id. */
  CREDENTIAL_UNKNOWN: 'OSSN_CREDENTIAL_UNKNOWN',
  /** The credential is not linked to a client id it was asked about. */
  CREDENTIAL_CLIENT_NOT_LINKED: 'OSSN_CREDENTIAL_CLIENT_NOT_LINKED',
  /** A push subscription for this credential, client and receiver URL exists already. */
  PUSH_SUBSCRIPTION_EXISTS: 'OSSN_PUSH_SUBSCRIPTION_EXISTS',
  /** No push subscription has this id. */
  PUSH_SUBSCRIPTION_UNKNOWN: 'OSSN_PUSH_SUBSCRIPTION_UNKNOWN',
  /** A push subscription's sealed receiver password cannot be opened with the key given (another key sealed it, or it was damaged). */
  SECRET_UNREADABLE: 'OSSN_SECRET_UNREADABLE',
  /** Password checks in flight and waiting are at their bound: a login refused as busy. */
  PASSWORD_CHECKS_BUSY: 'OSSN_PASSWORD_CHECKS_BUSY',
  /** A partner request without credentials (JSON: no HTTP Basic auth). */
  CREDENTIALS_MISSING: 'OSSN_CREDENTIALS_MISSING',
  /** A failed login: unknown id, wrong password or disabled credential (SOAP and JSON). */
  LOGIN_INVALID: 'OSSN_LOGIN_INVALID',
  /** The credential lacks the scope of the operation asked for (SOAP and JSON). */
  SCOPE_FORBIDDEN: 'OSSN_SCOPE_FORBIDDEN',
  /** Any other mistake in a partner request: a missing, invalid or too long field, a malformed envelope. */
  BAD_REQUEST: 'OSSN_BAD_REQUEST',
  /** A partner request refused by a rate limit (per credential, or failed logins per address). */
  RATE_LIMITED: 'OSSN_RATE_LIMITED',
  /** A lookup's turn among its credential's lookups in flight did not come within the wait. */
  LOOKUP_WAIT_TIMEOUT: 'OSSN_LOOKUP_WAIT_TIMEOUT',
  /** The store (MongoDB) has not answered since the service started. */
  STORE_NOT_CONNECTED: 'OSSN_STORE_NOT_CONNECTED',
  /** A store operation did not end within its deadline. */
  STORE_TIMEOUT: 'OSSN_STORE_TIMEOUT',
  /** Some other work did not end within its deadline. */
  DEADLINE_EXCEEDED: 'OSSN_DEADLINE_EXCEEDED',
  /** Another writer changed a read-model document between the projector's read and its write. */
  WRITE_CONFLICT: 'OSSN_WRITE_CONFLICT',
  /** The projection refused an event (e.g. a location never recorded): it goes to the dead letters. */
  EVENT_REJECTED: 'OSSN_EVENT_REJECTED',
  /** A batch given up uncommitted because the consumer is stopping; it is delivered again. */
  BATCH_ABANDONED: 'OSSN_BATCH_ABANDONED',
  /** Another replay holds the replay lock. */
  REPLAY_LOCKED: 'OSSN_REPLAY_LOCKED',
  /** This replay's lock lapsed and another replay took it: it stops before changing anything more. */
  REPLAY_LOCK_LOST: 'OSSN_REPLAY_LOCK_LOST',
  /** A replay's handover (the hold on the previous version) did not complete in time. */
  HANDOVER_TIMEOUT: 'OSSN_HANDOVER_TIMEOUT',
  /** A projector refused to join a consumer group whose members read another topic. */
  GROUP_OF_ANOTHER_TOPIC: 'OSSN_GROUP_OF_ANOTHER_TOPIC',
  /** A server an `ossn` command needs (Kafka, MongoDB) did not answer within the command's wait. */
  SERVER_UNREACHABLE: 'OSSN_SERVER_UNREACHABLE',
  /** A port a process is configured to listen on cannot be had (taken, not allowed, no such address); the message names the variable. */
  PORT_UNAVAILABLE: 'OSSN_PORT_UNAVAILABLE',
  /** The development stack (scripts/stack) could not do what it was asked. */
  STACK_FAILED: 'OSSN_STACK_FAILED',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
