// Failed password re-checks (payout addresses, a referral payout to a new address, a password
// change) are limited per user: a stolen session must not be a way to guess the password. After
// RECHECK_MAX_FAILURES wrong passwords in RECHECK_WINDOW_MS, every re-check of that user answers 429
// until the oldest failure leaves the window. Only failures count, so a member adding many
// addresses with the right password is never slowed down.
import { AppError } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { countFailure, refuseOverFailures, type FailureLimit } from '../platform/failure-limit.ts';
import { PASSWORD_INCORRECT } from '../settlement/address-rules.ts';
import { WRONG_CURRENT_PASSWORD } from './password-change.ts';

export const RECHECK_MAX_FAILURES = 5;
export const RECHECK_WINDOW_MS = 15 * 60_000;
/** The 403 messages that mean "the password given was wrong". */
const WRONG_PASSWORD_MESSAGES = new Set([WRONG_CURRENT_PASSWORD, PASSWORD_INCORRECT]);

const RECHECK_LIMIT: FailureLimit = { max: RECHECK_MAX_FAILURES, windowMs: RECHECK_WINDOW_MS };

/**
 * A password re-check run under a limit: what a service is given so that the limit wraps the
 * re-check alone, never a whole request (a change asking for no password never meets it).
 */
export type Recheck = <T>(run: () => Promise<T>) => Promise<T>;
/** No limit: a caller that is not a member's request. */
export const UNLIMITED: Recheck = (run) => run();
/** The member's limit of wrong passwords as a Recheck. */
export const recheckOf = (limiter: RateLimiter, userId: string, nowMs: () => number): Recheck =>
  (run) => limitPasswordRechecks(limiter, userId, nowMs(), run);

export async function limitPasswordRechecks<T>(limiter: RateLimiter, userId: string, nowMs: number, run: () => Promise<T>): Promise<T> {
  const key = `password-recheck-failures:${userId}`;
  await refuseOverFailures(limiter, key, RECHECK_LIMIT, nowMs);
  try {
    return await run();
  } catch (err) {
    if (err instanceof AppError && err.status === 403 && WRONG_PASSWORD_MESSAGES.has(err.message)) await countFailure(limiter, key, RECHECK_LIMIT, nowMs);
    throw err;
  }
}
