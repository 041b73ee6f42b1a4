import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Credentials never reach a log line: header and field paths that can carry them are
 * censored here, once, for every logger derived from this one.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-trellis-principal"]',
  'req.headers["x-trellis-signature"]',
  'headers.authorization',
  '*.apiKey',
  '*.password',
  '*.secret',
  '*.token',
  '*.value',
];

export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    name: options.name ?? 'trellis',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
