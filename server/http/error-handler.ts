import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponse, graphqlErrorResponse } from '../../rest-adapter/error-shapes.js';
import { FAMILY_MOUNTS, type Family } from '../../rest-adapter/route.js';
import { toValidationIssues } from '../../platform/validation.js';
import { TrellisError, ValidationFailedError, unexpectedError } from '../../platform/errors.js';

/**
 * Every error of the HTTP layer (body parsing, size, content type, schema validation, unknown path, deliberate
 * TrellisErrors, bugs) is answered here, in the shape of the family whose URL was called.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const family = familyOf(request);
    const trellisError = toTrellisError(error, family);
    if (trellisError.code === 'INTERNAL') request.log.error({ err: error }, 'request failed');
    else if (trellisError.status >= 500) request.log.warn({ err: error }, 'request failed');
    // /graphql's own failures before Apollo ran (its authentication hook, the body) are GraphQL responses too.
    const response = isGraphQLPath(request) ? graphqlErrorResponse(trellisError) : errorResponse(family, trellisError);
    return reply.code(response.status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const family = familyOf(request);
    const response = errorResponse(family, new TrellisError(404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`));
    return reply.code(404).send(response.body);
  });
}

export function familyOf(request: FastifyRequest): Family {
  const configured = request.routeOptions.config?.family;
  if (configured) return configured;
  const url = request.url;
  for (const family of ['tracing', 'inference', 'training'] as const) {
    const mount = FAMILY_MOUNTS[family];
    if (url === mount || url.startsWith(`${mount}/`)) return family;
  }
  return 'platform';
}

function isGraphQLPath(request: FastifyRequest): boolean {
  return request.url === '/graphql' || request.url.startsWith('/graphql?');
}

function toTrellisError(error: FastifyError, family: Family): TrellisError {
  if (error instanceof TrellisError) return error;
  if (error.validation) {
    return new ValidationFailedError(toValidationIssues(error.validation as never, error.validationContext ?? 'body'));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      // FastAPI answers unparsable JSON with a 422 json_invalid item; OpenAI with a 400.
      return family === 'inference' || family === 'platform'
        ? new TrellisError(400, 'BAD_REQUEST', `We could not parse the JSON body of your request: ${error.message}`)
        : new ValidationFailedError([{ loc: ['body'], msg: `JSON decode error: ${error.message}`, type: 'json_invalid' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TrellisError(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than this endpoint accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new TrellisError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type: send application/json');
    default:
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return new TrellisError(error.statusCode, 'BAD_REQUEST', error.message);
      }
      // A bug, or a dependency that is unavailable (platform/errors.ts decides which).
      return unexpectedError(error);
  }
}
