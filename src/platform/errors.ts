// Domain errors carry the spec's exact message and an HTTP status; the edge maps them to
// `{"error": message}`. Services throw these and never know about HTTP otherwise.
export class AppError extends Error {
  readonly status: number;
  /** Seconds the client should wait before trying again (the answer's Retry-After), when known. */
  readonly retryAfterS: number | undefined;
  constructor(status: number, message: string, retryAfterS?: number) {
    super(message);
    this.status = status;
    this.retryAfterS = retryAfterS;
    this.name = 'AppError';
  }
}

export const badRequest = (message: string) => new AppError(400, message);
export const unauthorized = (message: string) => new AppError(401, message);
export const forbidden = (message: string) => new AppError(403, message);
export const notFound = (message = 'not found') => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
/**
 * A refused request under a limit whose window is `windowMs`: the answer's Retry-After is that
 * window in whole seconds (at least 1), the longest the client can have to wait before a request
 * of its own leaves the window.
 */
export const tooManyRequests = (windowMs: number) => new AppError(429, RATE_LIMITED, Math.max(1, Math.ceil(windowMs / 1000)));

export const INVALID_REQUEST_BODY = 'invalid request body';
/** 413: a body past BODY_LIMIT_BYTES (src/platform/http/body.ts), on any route that reads a body. */
export const BODY_TOO_LARGE = 'request body too large';
export const RATE_LIMITED = 'rate limit exceeded';
export const NOT_FOUND = 'not found';
/** An empty PATCH (settings, payout address, operator merchant update). */
export const NOTHING_TO_UPDATE = 'nothing to update';
export const INTERNAL_ERROR = 'internal error';
/** 503 with Retry-After: the database server refused connections for as long as a request waits (patient-pool.ts). */
export const DATABASE_BUSY = 'the service is busy: try again in a few seconds';
/** Seconds a client is told to wait after DATABASE_BUSY. */
export const DATABASE_BUSY_RETRY_S = 5;
