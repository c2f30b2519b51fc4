export { installIdempotency, IDEMPOTENCY_KEY_LENGTH, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_PROGRESS, REPLAYED_HEADER } from './hooks.ts';
export { IdempotencyStore, createIdempotencyStore, IDEMPOTENCY_TTL_MS, IDEMPOTENCY_LEASE_MS } from './store.ts';
export { RequestFingerprints, type RequestFingerprint } from './fingerprint.ts';
