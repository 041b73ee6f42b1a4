import { GraphQLError } from 'graphql';
import { ERROR_REASONS, isErrorReason, isPublicErrorCode, FOREIGN_REQUEST_CODES, type ErrorReason, type PublicErrorCode } from './error-catalogue.js';

/**
 * Every deliberate error of the platform is a TrellisError: it carries its HTTP status and a stable code (a reason
 * of platform/error-catalogue.ts). Subgraphs throw them; they travel through the gateway as GraphQL error
 * extensions (the public `code` of the catalogue, the finer `reason`); the REST adapter turns them into each
 * family's wire shape in exactly one place (rest-adapter/error-shapes.ts). Anything else that is thrown is a bug
 * and is masked as an internal error.
 */
export const ERROR_CODES = Object.keys(ERROR_REASONS) as ErrorReason[];
export type ErrorCode = ErrorReason;

export function isErrorCode(value: unknown): value is ErrorCode {
  return isErrorReason(value);
}

/** One problem with one input field, in the shape FastAPI/pydantic clients know. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface TrellisErrorOptions {
  /** Field-level problems (VALIDATION_FAILED). */
  issues?: ValidationIssue[];
  /** The request parameter at fault, for OpenAI-style bodies. */
  param?: string;
  /** Seconds a client should wait before retrying (RATE_LIMITED, UNAVAILABLE). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class TrellisError extends Error {
  override name = 'TrellisError';
  readonly issues?: ValidationIssue[];
  readonly param?: string;
  readonly retryAfterSeconds?: number;
  /**
   * GraphQL only: where the bad input is, as a path starting with the argument name (`["body","start","op_name"]`).
   * Set where a resolver's arguments are known (platform/graphql/input-field-paths.ts), not by whoever throws.
   */
  field?: (string | number)[];

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    options: TrellisErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.issues = options.issues;
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /**
   * graphql-js copies `extensions` of an error thrown in a resolver onto the GraphQL error it reports, so a
   * TrellisError thrown anywhere in a subgraph reaches the gateway with its status and code.
   */
  get extensions(): Record<string, unknown> {
    const code = this.publicCode;
    return {
      code,
      ...(this.code !== code ? { reason: this.code } : {}),
      status: this.status,
      ...(this.field ? { field: this.field } : {}),
      ...(this.issues ? { issues: this.issues } : {}),
      ...(this.param ? { param: this.param } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
    };
  }

  /** The catalogue code GraphQL clients see; the error's own `code` travels as `extensions.reason` when it differs. */
  get publicCode(): PublicErrorCode {
    return ERROR_REASONS[this.code].code;
  }

  toGraphQLError(): GraphQLError {
    return new GraphQLError(this.message, { extensions: this.extensions });
  }
}

export class BadRequestError extends TrellisError {
  constructor(message: string, options?: TrellisErrorOptions) {
    super(400, 'BAD_REQUEST', message, options);
  }
}
export class ValidationFailedError extends TrellisError {
  constructor(issues: ValidationIssue[], message = 'Request validation failed') {
    super(422, 'VALIDATION_FAILED', message, { issues, param: issues[0]?.loc.filter((part) => part !== 'body').join('.') || undefined });
  }
}
export class UnauthenticatedError extends TrellisError {
  constructor(message = 'A valid API key is required (Authorization: Bearer <key>)') {
    super(401, 'UNAUTHENTICATED', message);
  }
}
export class ForbiddenError extends TrellisError {
  constructor(message: string) {
    super(403, 'FORBIDDEN', message);
  }
}
export class NotFoundError extends TrellisError {
  constructor(message: string, options?: TrellisErrorOptions) {
    super(404, 'NOT_FOUND', message, options);
  }
}
export class ConflictError extends TrellisError {
  constructor(message: string) {
    super(409, 'CONFLICT', message);
  }
}

/**
 * Rebuilds a TrellisError from the extensions of a GraphQL error that crossed the gateway: `reason` when the error
 * carried one, else its code (a catalogue code that is also a reason, or one of another GraphQL server's codes).
 */
export function trellisErrorFromGraphQL(error: { message: string; extensions?: Record<string, unknown> }): TrellisError {
  const ext = error.extensions ?? {};
  const code = isErrorReason(ext.reason) ? ext.reason : reasonOfCode(ext.code);
  const status = typeof ext.status === 'number' ? ext.status : ERROR_REASONS[code].status;
  return new TrellisError(status, code, code === 'INTERNAL' ? 'Internal server error' : error.message, {
    issues: Array.isArray(ext.issues) ? (ext.issues as ValidationIssue[]) : undefined,
    param: typeof ext.param === 'string' ? ext.param : undefined,
    retryAfterSeconds: typeof ext.retryAfterSeconds === 'number' ? ext.retryAfterSeconds : undefined,
  });
}

function reasonOfCode(code: unknown): ErrorCode {
  if (isErrorReason(code)) return code;
  const publicCode = isPublicErrorCode(code) ? code : typeof code === 'string' ? FOREIGN_REQUEST_CODES[code] : undefined;
  switch (publicCode) {
    case 'BAD_USER_INPUT':
    case 'GRAPHQL_PARSE_FAILED':
    case 'GRAPHQL_VALIDATION_FAILED':
    case 'PERSISTED_QUERY_NOT_FOUND':
      return 'BAD_REQUEST';
    default:
      return 'INTERNAL';
  }
}

/**
 * Seconds a client is told to wait (Retry-After, `retryAfterSeconds`) when a platform service or the database
 * cannot be reached: long enough for a restarting service or a PostgreSQL fail-over to come back, short enough that
 * a client retrying once does not notice a rolling restart.
 */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/** A platform service or the database cannot be reached right now: 503 UNAVAILABLE with a retry time. */
export class DependencyUnavailableError extends TrellisError {
  constructor(cause?: unknown) {
    super(503, 'UNAVAILABLE', 'A platform service or its database is unavailable right now; retry later', {
      retryAfterSeconds: DEPENDENCY_RETRY_AFTER_SECONDS,
      cause,
    });
  }
}

/** Socket errors of a connection that failed or broke: the peer is down, restarting or unreachable. */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** undici's (Node's fetch) names for the same failures. */
const UNDICI_CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);
/**
 * PostgreSQL SQLSTATEs of a server that is going away or not yet accepting connections: 57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down, in recovery), and class 08
 * (connection exceptions).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);
/** What node-postgres and its pool say, with no code, when a connection broke or none could be had in time. */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * The one decision "this error means a dependency is unavailable" (a subgraph service or PostgreSQL cannot be
 * reached, refused or dropped the connection, is shutting down or starting up) — as opposed to a bug, which stays
 * INTERNAL. Looks through what wrapped the error on its way here: GraphQL errors (`originalError`), `cause` chains
 * (fetch failures), AggregateErrors (a connection tried on several addresses) and WebSocket error events.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof DependencyUnavailableError) return true;
    // A deliberate error (other than the above) says what it is; what caused it does not change that.
    if (current instanceof TrellisError) continue;
    const { code, syscall, message } = current as { code?: unknown; syscall?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (CONNECTION_ERROR_CODES.has(code) || UNDICI_CONNECTION_CODES.has(code)) return true;
      if (UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    // A Unix socket whose server is gone (ENOENT: the socket file was removed with it).
    if (syscall === 'connect') return true;
    // A WebSocket closed by a server going away (1001) or dropped without a close frame (1006).
    if ((code === 1001 || code === 1006) && 'wasClean' in current) return true;
    if (typeof message === 'string' && PG_CONNECTION_MESSAGES.some((known) => message.includes(known))) return true;
    // `error`: a WebSocket ErrorEvent's socket error.
    const { originalError, cause, errors, error: eventError } = current as { originalError?: unknown; cause?: unknown; errors?: unknown; error?: unknown };
    pending.push(originalError, cause, eventError);
    if (Array.isArray(errors)) pending.push(...errors);
  }
  return false;
}

/** The error a client gets for something that is not a deliberate TrellisError: UNAVAILABLE for an outage, else INTERNAL. */
export function unexpectedError(error: unknown): TrellisError {
  if (isDependencyUnavailable(error)) return error instanceof DependencyUnavailableError ? error : new DependencyUnavailableError(error);
  return new TrellisError(500, 'INTERNAL', 'Internal server error', { cause: error });
}
