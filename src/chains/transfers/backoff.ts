// How often a transfer that failed is tried again before it is given up (spec 3: `failed`, "could
// not be sent after repeated tries"). Pure.

/** Waits before the 2nd, 3rd, 4th and 5th try; the 5th failure is final. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [30_000, 120_000, 600_000, 1_800_000];

/** The wait before the next try after `failures` failures, or null when the transfer is given up. */
export function retryDelay(failures: number, delays: readonly number[]): number | null {
  return failures >= 1 && failures <= delays.length ? delays[failures - 1] : null;
}
