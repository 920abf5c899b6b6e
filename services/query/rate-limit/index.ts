// Rate limits shared by the SOAP and JSON endpoints: create once per app with createRequestLimits.
export { RateLimitedError, retryAfterSeconds } from './rate-limited-error.js';
export { guardLogins } from './login-guard.js';
export { createRequestLimits, DEFAULT_LOGIN_FAILURES_PER_MINUTE, type RequestLimitOptions, type RequestLimits } from './request-limits.js';
