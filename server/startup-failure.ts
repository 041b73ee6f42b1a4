import { ConfigError } from '../platform/config.js';
import { DataDirectoryInUseError, EmbeddedPostgresStartError } from '../platform/db/embedded-postgres.js';
import type { Logger } from '../platform/logger.js';

/** Network errors meaning the database (or another service) cannot be reached at the configured address. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);
/** PostgreSQL's refusals of the connection itself: bad password, unknown role or database, too many clients. */
const REFUSED_BY_POSTGRES = new Set(['28P01', '28000', '3D000', '53300', '57P03']);

/**
 * Logs why the platform could not start as one line a person can act on. A misconfiguration (a bad setting, a
 * database that cannot be reached or refuses us, PostgreSQL's own refusal of a setting) is said plainly, without a
 * stack trace; anything else is a bug and keeps its stack.
 */
export function logStartupFailure(logger: Logger, error: unknown): void {
  const code = (error as { code?: unknown }).code;
  const expected =
    error instanceof ConfigError ||
    error instanceof EmbeddedPostgresStartError ||
    error instanceof DataDirectoryInUseError ||
    (typeof code === 'string' && (UNREACHABLE.has(code) || REFUSED_BY_POSTGRES.has(code)));
  if (!expected) {
    logger.fatal({ err: error }, 'Trellis failed to start');
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  const reason = typeof code === 'string' && UNREACHABLE.has(code) ? `cannot reach the database (DATABASE_URL): ${message}` : message;
  logger.fatal({ reason }, `Trellis failed to start: ${reason}`);
}
