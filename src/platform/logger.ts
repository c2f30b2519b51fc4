// pino for everything; secrets are redacted by path so a logged request never carries one.
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie',
  'res.headers["set-cookie"]', '*.password', '*.secret', '*.current_password', '*.new_password',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}

export type { Logger };
