/**
 * The catalogue of error codes: what GraphQL clients find in `errors[].extensions.code`, in every subgraph, through
 * the gateway (one process or distributed), and on graphql-ws (`/graphql/ws`). Anything that is not in this list
 * is a bug and reaches clients as INTERNAL. docs/architecture.md ("Errors") shows the same tables; a test keeps
 * them in sync (test/foundation/error-catalogue.test.ts).
 */
export interface PublicErrorCodeEntry {
  /** The HTTP status a REST route answers with for this code; `reason` may refine it (table below). */
  status: number;
  meaning: string;
}

export const PUBLIC_ERROR_CODES = {
  UNAUTHENTICATED: { status: 401, meaning: 'No API key where one is needed, or a key that is unknown or revoked' },
  FORBIDDEN: { status: 403, meaning: 'The caller is known but may not do this (not a member of the team, not an admin)' },
  NOT_FOUND: { status: 404, meaning: 'The object named does not exist' },
  BAD_USER_INPUT: { status: 400, meaning: 'An argument or variable value is invalid (`field`, `issues` say where), or the request is malformed' },
  CONFLICT: { status: 409, meaning: 'The write collides with what exists (a name already taken, a state that does not allow it)' },
  RATE_LIMITED: { status: 429, meaning: 'Over a request limit; retry after `retryAfterSeconds`' },
  UNAVAILABLE: { status: 503, meaning: 'Cannot serve right now (no model deployment ready, a platform service unreachable); retry later' },
  UPSTREAM_ERROR: { status: 502, meaning: 'A server called on the caller\'s behalf (model server, dataset source) failed or timed out' },
  INTERNAL: { status: 500, meaning: 'A bug: the message is masked and the error logged with the request id' },
  GRAPHQL_PARSE_FAILED: { status: 400, meaning: 'The document is not valid GraphQL syntax; nothing ran (Apollo\'s code)' },
  GRAPHQL_VALIDATION_FAILED: { status: 400, meaning: 'The document does not fit the schema or exceeds the depth/cost limits; nothing ran (Apollo\'s code)' },
  PERSISTED_QUERY_NOT_FOUND: { status: 200, meaning: 'Automatic persisted queries: unknown hash, send the full query (Apollo\'s protocol; clients retry by themselves)' },
} as const satisfies Record<string, PublicErrorCodeEntry>;
export type PublicErrorCode = keyof typeof PUBLIC_ERROR_CODES;

export function isPublicErrorCode(value: unknown): value is PublicErrorCode {
  return typeof value === 'string' && Object.hasOwn(PUBLIC_ERROR_CODES, value);
}

export interface ErrorReasonEntry {
  /** The public code a TrellisError with this reason carries on the GraphQL wire. */
  code: PublicErrorCode;
  /** Its HTTP status (`extensions.status`, and the REST adapter's answer). */
  status: number;
  meaning: string;
}

/**
 * The platform's own, finer codes (`TrellisError.code`): the REST adapter needs them to answer in each family's
 * exact shape (e.g. VALIDATION_FAILED → FastAPI's 422 `{detail}` for tracing, OpenAI's 400 for inference). On the
 * GraphQL wire each becomes its public `code`, and travels as `extensions.reason` when it differs from it.
 */
export const ERROR_REASONS = {
  BAD_REQUEST: { code: 'BAD_USER_INPUT', status: 400, meaning: 'A value the platform cannot accept (`param` names it)' },
  VALIDATION_FAILED: { code: 'BAD_USER_INPUT', status: 422, meaning: 'Schema validation failed; `issues` lists every problem as pydantic `{loc, msg, type}`' },
  PAYLOAD_TOO_LARGE: { code: 'BAD_USER_INPUT', status: 413, meaning: 'A body or file over its size limit' },
  UNSUPPORTED_MEDIA_TYPE: { code: 'BAD_USER_INPUT', status: 415, meaning: 'A body that is not JSON (HTTP edge only)' },
  UNAUTHENTICATED: { code: 'UNAUTHENTICATED', status: 401, meaning: 'As the public code' },
  FORBIDDEN: { code: 'FORBIDDEN', status: 403, meaning: 'As the public code' },
  NOT_FOUND: { code: 'NOT_FOUND', status: 404, meaning: 'As the public code' },
  CONFLICT: { code: 'CONFLICT', status: 409, meaning: 'As the public code' },
  RATE_LIMITED: { code: 'RATE_LIMITED', status: 429, meaning: 'As the public code (the platform\'s limits, or a model server\'s)' },
  UPSTREAM_ERROR: { code: 'UPSTREAM_ERROR', status: 502, meaning: 'The upstream server failed or answered garbage' },
  UPSTREAM_TIMEOUT: { code: 'UPSTREAM_ERROR', status: 504, meaning: 'The upstream server sent nothing in time' },
  UNAVAILABLE: { code: 'UNAVAILABLE', status: 503, meaning: 'As the public code' },
  INTERNAL: { code: 'INTERNAL', status: 500, meaning: 'As the public code' },
} as const satisfies Record<string, ErrorReasonEntry>;
export type ErrorReason = keyof typeof ERROR_REASONS;

export function isErrorReason(value: unknown): value is ErrorReason {
  return typeof value === 'string' && Object.hasOwn(ERROR_REASONS, value);
}

/**
 * Codes Apollo Server produces for what is the request's fault that are not in the catalogue, and the public code
 * they become. (Its `BAD_REQUEST`, for a malformed HTTP request, is also the platform's reason of that name.)
 */
export const FOREIGN_REQUEST_CODES: Readonly<Record<string, PublicErrorCode>> = {
  // The document has no operation of the requested name, or several and no name.
  OPERATION_RESOLUTION_FAILURE: 'BAD_USER_INPUT',
};

/**
 * The extensions a client may see; every other key (stack traces, the subgraph service's name or URL, an
 * upstream response) is dropped on the way out.
 */
export const PUBLIC_EXTENSION_KEYS = ['code', 'reason', 'status', 'field', 'issues', 'param', 'retryAfterSeconds'] as const;
