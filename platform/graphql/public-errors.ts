import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import {
  ERROR_REASONS,
  FOREIGN_REQUEST_CODES,
  PUBLIC_ERROR_CODES,
  PUBLIC_EXTENSION_KEYS,
  isErrorReason,
  isPublicErrorCode,
  type PublicErrorCode,
} from '../error-catalogue.js';
import type { Logger } from '../logger.js';
import { DependencyUnavailableError, isDependencyUnavailable } from '../errors.js';

/**
 * The last step of every GraphQL error on its way to a client (the gateway's formatError, the graphql-ws endpoint):
 * its code becomes a catalogue code (platform/error-catalogue.ts), its extensions the public ones, and anything
 * that is not a deliberate error — no code, an unknown code, INTERNAL — is logged in full and answered with
 * "Internal server error". Both topologies and every transport answer alike.
 */
export function toPublicError(formatted: GraphQLFormattedError, error: unknown, logger: Logger): GraphQLFormattedError {
  const extensions = (formatted.extensions ?? {}) as Record<string, unknown>;
  const code = publicCodeOf(extensions.code);
  if ((code === undefined || code === 'INTERNAL') && isDependencyUnavailable(error)) {
    // An outage, not a bug: the client may retry (platform/errors.ts decides which errors mean that).
    logger.warn({ err: unwrapResolverError(error), path: formatted.path }, 'a platform service or the database is unavailable');
    return outageError(formatted);
  }
  if (code === undefined || code === 'INTERNAL') {
    logger.error({ err: unwrapResolverError(error), path: formatted.path, code: extensions.code }, 'unexpected GraphQL error');
    return {
      message: 'Internal server error',
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: { code: 'INTERNAL', status: PUBLIC_ERROR_CODES.INTERNAL.status },
    };
  }
  const visible: Record<string, unknown> = {};
  for (const key of PUBLIC_EXTENSION_KEYS) if (extensions[key] !== undefined) visible[key] = extensions[key];
  visible.code = code;
  // An error that carries a platform reason as its code (built by hand rather than from a TrellisError).
  if (visible.reason === undefined && isErrorReason(extensions.code) && extensions.code !== code) visible.reason = extensions.code;
  if (typeof visible.status !== 'number') {
    visible.status = isErrorReason(visible.reason) ? ERROR_REASONS[visible.reason].status : PUBLIC_ERROR_CODES[code].status;
  }
  if (code === 'BAD_USER_INPUT' && visible.field === undefined) {
    const field = variableFieldPath(formatted.message);
    if (field) visible.field = field;
  }
  return {
    message: formatted.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: visible,
  };
}

/** A formatted error with the UNAVAILABLE code and retry hint of DependencyUnavailableError, in place of `formatted`'s. */
export function outageError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const outage = new DependencyUnavailableError();
  return {
    message: outage.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: outage.extensions,
  };
}

/**
 * A subgraph service's formatError: an outage behind it (its database) leaves as UNAVAILABLE, so the gateway and
 * its clients see a retryable error rather than a bug; everything else is left to the gateway's toPublicError.
 */
export function markOutages(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const code = (formatted.extensions as Record<string, unknown> | undefined)?.code;
  if (code !== undefined && code !== 'INTERNAL_SERVER_ERROR' && code !== 'INTERNAL') return formatted;
  return isDependencyUnavailable(error) ? outageError(formatted) : formatted;
}

function publicCodeOf(code: unknown): PublicErrorCode | undefined {
  if (isPublicErrorCode(code)) return code;
  if (isErrorReason(code)) return ERROR_REASONS[code].code;
  if (typeof code === 'string') return FOREIGN_REQUEST_CODES[code];
  return undefined;
}

/**
 * graphql-js rejects variables that do not fit their types before anything runs, with messages such as
 * `Variable "$input" got invalid value 3 at "input.start.op_name"; …` or `Variable "$n" of required type "Int!" was
 * not provided.` — the message is the only place that says where. The path starts with the variable (`$input`).
 */
export function variableFieldPath(message: string): (string | number)[] | undefined {
  const variable = /^Variable "\$([_A-Za-z][_0-9A-Za-z]*)"/.exec(message)?.[1];
  if (!variable) return undefined;
  const at = new RegExp(` at "${variable}((?:\\.[^".[\\]]+|\\[\\d+\\])*)"; `).exec(message)?.[1] ?? '';
  const inside = [...at.matchAll(/\.([^".[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : match[1]!));
  return [`$${variable}`, ...inside];
}
