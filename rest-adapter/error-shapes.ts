import type { TrellisError } from '../platform/errors.js';
import type { Family } from './route.js';

/**
 * The one place where a TrellisError becomes an HTTP response, in the conventions of each family's real clients:
 * - tracing (Weave SDKs, a FastAPI server): 422 `{detail:[{loc,msg,type}]}` for schema violations, `{reason}` else;
 * - inference (OpenAI SDK): `{error:{message,type,param,code}}` for everything, 400 for invalid parameters;
 * - training (ART client, FastAPI): 422 `{detail:[...]}` for request validation, OpenAI-style otherwise;
 * - platform routes: OpenAI-style, the most widely understood JSON error.
 */
export interface ErrorResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export function errorResponse(family: Family, error: TrellisError): ErrorResponse {
  const headers = retryAfterHeader(error);
  if (error.status === 401) headers['www-authenticate'] = family === 'tracing' ? 'Basic realm="trellis"' : 'Bearer';
  const validation = error.code === 'VALIDATION_FAILED' && error.issues !== undefined;
  switch (family) {
    case 'tracing':
      return validation
        ? { status: 422, body: { detail: error.issues }, headers }
        : { status: error.status, body: { reason: error.message }, headers };
    case 'training':
      return validation
        ? { status: 422, body: { detail: error.issues }, headers }
        : { status: error.status, body: openAiError(error), headers };
    case 'inference':
      return { status: validation ? 400 : error.status, body: openAiInferenceError(error), headers };
    case 'platform':
      return { status: error.status, body: openAiError(error), headers };
  }
}

/**
 * The answer of `/graphql` to a request that failed before GraphQL execution (its authentication hook could not
 * reach the database, a body it could not read): a GraphQL response with the error's catalogue code and extensions,
 * not a REST family's shape, so GraphQL clients can read it.
 */
export function graphqlErrorResponse(error: TrellisError): ErrorResponse {
  const headers = retryAfterHeader(error);
  const message = error.code === 'INTERNAL' ? 'Internal server error' : error.message;
  return { status: error.status, body: { errors: [{ message, extensions: error.extensions }] }, headers };
}

/** RATE_LIMITED, UNAVAILABLE: when to try again, in whole seconds (at least one), on every surface. */
function retryAfterHeader(error: TrellisError): Record<string, string> {
  return error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) };
}

function openAiError(error: TrellisError) {
  const issue = error.issues?.[0];
  const where = issue?.loc.filter((part) => part !== 'body').join('.');
  const message = issue ? (where ? `${issue.msg}: ${where}` : issue.msg) : error.message;
  return {
    error: {
      message,
      type: openAiErrorType(error.status),
      param: error.param ?? null,
      code: openAiErrorCode(error),
    },
  };
}

/**
 * The inference family answers as OpenAI's API does: every 404 is an `invalid_request_error` (an unknown path, an
 * unknown model), and a model the caller cannot see (404 naming `model`) has the code `model_not_found`.
 */
function openAiInferenceError(error: TrellisError) {
  const body = openAiError(error);
  if (error.status !== 404) return body;
  return {
    error: { ...body.error, type: 'invalid_request_error', code: error.param === 'model' ? 'model_not_found' : body.error.code },
  };
}

function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function openAiErrorCode(error: TrellisError): string | null {
  switch (error.code) {
    case 'UNAUTHENTICATED':
      return 'invalid_api_key';
    case 'RATE_LIMITED':
      return 'rate_limit_exceeded';
    case 'VALIDATION_FAILED':
    case 'BAD_REQUEST':
      return 'invalid_request';
    default:
      return error.code.toLowerCase();
  }
}
