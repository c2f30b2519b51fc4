// The database-free core of webhooks: signing, the receiver's check, the body of an event, where a
// webhook may go, one attempt, how many run at once, and when the next one is due.
export { SIGNATURE_VERSION, signatureDigest, signatureHeader, unixSeconds } from './signing.ts';
export {
  DEFAULT_TOLERANCE_SEC, VERIFY_BAD_JSON, VERIFY_BAD_TIMESTAMP, VERIFY_MISMATCH, VERIFY_MISSING_HEADER,
  VERIFY_MISSING_SIGNATURE, VERIFY_MISSING_TIMESTAMP, VERIFY_TOO_OLD, verifyWebhook,
  type VerifiedEvent, type VerifyOptions, type VerifyResult,
} from './verify.ts';
export {
  buildEnvelope, FIELDS_HIDDEN_FROM_WEBHOOKS, paymentForWebhook, serializeEnvelope, webhookBody,
  type EnvelopeEvent, type WebhookEnvelope,
} from './envelope.ts';
export { ipFamily, isPublicAddress, type IpFamily } from './ip-ranges.ts';
export {
  bareHost, checkPaymentWebhookUrl, checkWebhookUrl, PAYMENT_URL_PREFIX, systemResolver, URL_DOES_NOT_RESOLVE,
  URL_NOT_ABSOLUTE, URL_NOT_HTTPS, URL_NOT_PUBLIC, URL_REQUIRED, URL_TOO_LONG, urlTooLong,
  type ResolvedAddress, type Resolver, type UrlCheck, type UrlPolicyOptions,
} from './url-policy.ts';
export {
  answeredError, attemptDelivery, NO_WEBHOOK_URL, RESPONSE_KEPT_CHARS, USER_AGENT,
  type AttemptRequest, type AttemptResult,
} from './http-attempt.ts';
export { describeAttemptError, timeoutError } from './attempt-errors.ts';
export { AttemptLimiter, destinationKey, type LimiterOptions } from './concurrency.ts';
export { afterFailedAttempt, MAX_ATTEMPTS, nextAttemptAt } from './schedule.ts';
