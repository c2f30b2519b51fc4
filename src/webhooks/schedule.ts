// The retry schedule of spec 6.1: attempt n+1 comes delays[n-1] seconds after attempt n failed
// (CONTRACT: counted from the end of the failed attempt); after the 7th failure the delivery is failed.

export const MAX_ATTEMPTS = 7;

/**
 * When the next attempt is due after `attemptsMade` attempts, the last of which failed at `failedAt`;
 * `null` when no attempt remains (the delivery becomes `failed`).
 * `delaysSeconds` are the waits before attempts 2..7 (WEBHOOK_RETRY_DELAYS).
 */
export function nextAttemptAt(attemptsMade: number, delaysSeconds: readonly number[], failedAt: Date): Date | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be a whole number of at least 1, got ${attemptsMade}`);
  }
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const delay = delaysSeconds[attemptsMade - 1];
  if (delay === undefined) {
    throw new RangeError(`no retry delay for attempt ${attemptsMade + 1}: ${delaysSeconds.length} delays given`);
  }
  return new Date(failedAt.getTime() + delay * 1000);
}

/** What a failed attempt leaves: `pending` with its next time, or `failed` when it was the last. */
export function afterFailedAttempt(
  attemptsMade: number,
  delaysSeconds: readonly number[],
  failedAt: Date,
): { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' } {
  const next = nextAttemptAt(attemptsMade, delaysSeconds, failedAt);
  return next === null ? { status: 'failed' } : { status: 'pending', nextAttemptAt: next };
}
