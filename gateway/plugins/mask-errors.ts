import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { isErrorCode } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';

/** GraphQL-level codes Apollo produces for malformed requests; safe to show as they are. */
const REQUEST_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
]);

/**
 * Errors are masked by default: only deliberate errors (TrellisError codes, request errors) reach clients with
 * their message; anything else is a bug, logged in full and answered with "Internal server error".
 */
export function maskUnexpectedErrors(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const code = formatted.extensions?.code;
    if (isErrorCode(code) && code !== 'INTERNAL') return stripServiceDetails(formatted);
    if (typeof code === 'string' && REQUEST_ERROR_CODES.has(code)) return stripServiceDetails(formatted);
    logger.error({ err: unwrapResolverError(error), path: formatted.path }, 'unexpected GraphQL error');
    return {
      message: 'Internal server error',
      path: formatted.path,
      locations: formatted.locations,
      extensions: { code: 'INTERNAL', status: 500 },
    };
  };
}

function stripServiceDetails(formatted: GraphQLFormattedError): GraphQLFormattedError {
  if (!formatted.extensions) return formatted;
  const { stacktrace: _stacktrace, exception: _exception, ...extensions } = formatted.extensions as Record<string, unknown>;
  return { ...formatted, extensions };
}
