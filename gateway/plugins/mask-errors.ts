import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from '../../platform/logger.js';
import { toPublicError } from '../../platform/graphql/public-errors.js';

/**
 * The gateway's formatError: every error leaves with a catalogue code (platform/error-catalogue.ts) and only public
 * extensions; anything that is not a deliberate error is a bug, logged in full and answered with "Internal server
 * error" (platform/graphql/public-errors.ts, shared with the graphql-ws endpoint).
 */
export function maskUnexpectedErrors(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => toPublicError(formatted, error, logger);
}
