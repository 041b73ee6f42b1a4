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
