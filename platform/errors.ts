import { GraphQLError } from 'graphql';

/**
 * Every deliberate error of the platform is a TrellisError: it carries its HTTP status and a stable code.
 * Subgraphs throw them; they travel through the gateway as GraphQL error extensions; the REST adapter turns
 * them into each family's wire shape in exactly one place (rest-adapter/error-shapes.ts). Anything else that
 * is thrown is a bug and is masked as an internal error.
 */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'UPSTREAM_ERROR',
  'UPSTREAM_TIMEOUT',
  'UNAVAILABLE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
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
    return this.toGraphQLError().extensions;
  }

  toGraphQLError(): GraphQLError {
    return new GraphQLError(this.message, {
      extensions: {
        code: this.code,
        status: this.status,
        ...(this.issues ? { issues: this.issues } : {}),
        ...(this.param ? { param: this.param } : {}),
        ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
      },
    });
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

/** Rebuilds a TrellisError from the extensions of a GraphQL error that crossed the gateway. */
export function trellisErrorFromGraphQL(error: { message: string; extensions?: Record<string, unknown> }): TrellisError {
  const ext = error.extensions ?? {};
  const code = isErrorCode(ext.code) ? ext.code : graphqlCodeToErrorCode(ext.code);
  const status = typeof ext.status === 'number' ? ext.status : defaultStatus(code);
  return new TrellisError(status, code, code === 'INTERNAL' ? 'Internal server error' : error.message, {
    issues: Array.isArray(ext.issues) ? (ext.issues as ValidationIssue[]) : undefined,
    param: typeof ext.param === 'string' ? ext.param : undefined,
    retryAfterSeconds: typeof ext.retryAfterSeconds === 'number' ? ext.retryAfterSeconds : undefined,
  });
}

function graphqlCodeToErrorCode(code: unknown): ErrorCode {
  switch (code) {
    case 'GRAPHQL_VALIDATION_FAILED':
    case 'GRAPHQL_PARSE_FAILED':
    case 'BAD_USER_INPUT':
      return 'BAD_REQUEST';
    default:
      return 'INTERNAL';
  }
}

function defaultStatus(code: ErrorCode): number {
  const statuses: Record<ErrorCode, number> = {
    BAD_REQUEST: 400,
    VALIDATION_FAILED: 422,
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    CONFLICT: 409,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    RATE_LIMITED: 429,
    UPSTREAM_ERROR: 502,
    UPSTREAM_TIMEOUT: 504,
    UNAVAILABLE: 503,
    INTERNAL: 500,
  };
  return statuses[code];
}
