import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationFailedError } from '../errors.js';
import { findUnstorableInput, unstorableIssue } from '../storable-input.js';

export interface JsonBodyParserOptions {
  /** Deepest nesting of objects and arrays a request may send (TRELLIS_JSON_MAX_DEPTH). */
  maxDepth: number;
}

/** pydantic's name for each request part, the first element of an issue's `loc`. */
const PARTS = [
  ['params', 'path'],
  ['query', 'query'],
  ['body', 'body'],
] as const;

/**
 * The edge's one check of what the REST routes receive: JSON bodies are parsed as Fastify would (same errors for
 * malformed JSON, prototype poisoning refused; an empty body is no body), then walked once for nesting deeper than
 * `maxDepth` and for strings or keys PostgreSQL cannot store (platform/storable-input.ts). Path parameters, query strings and
 * bodies of other types (multipart fields) get the same string check before the handler runs. An offence is a
 * ValidationFailedError at its path, which each family renders in its own shape (422 `detail` for tracing and
 * training, OpenAI 400 with `param` for inference). `/graphql` is left to the gateway's own check
 * (gateway/plugins/storable-input.ts), so GraphQL clients get GraphQL errors.
 */
export function installJsonBodyParser(app: FastifyInstance, options: JsonBodyParserOptions): void {
  const { maxDepth } = options;
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const checkedBodies = new WeakSet<FastifyRequest>();
  const isRestRoute = (request: FastifyRequest) => request.routeOptions.config?.family !== undefined;

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // An empty body is no body, whatever the content type says: the OpenAI SDKs (and ART's client built on them)
    // send `content-type: application/json` on body-less DELETEs and POSTs. A route that needs a body still gets
    // its own validation error for a missing one.
    if ((body as string).length === 0) return done(null, undefined);
    parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      if (isRestRoute(request)) {
        const found = findUnstorableInput(value, maxDepth);
        if (found) return done(new ValidationFailedError([unstorableIssue(found, 'body', maxDepth)]), undefined);
        checkedBodies.add(request);
      }
      done(null, value);
    });
  });

  // Callback-style (no promise per request). Runs after authentication and schema validation.
  app.addHook('preHandler', (request, _reply, done) => {
    if (!isRestRoute(request)) return done();
    for (const [part, location] of PARTS) {
      if (part === 'body' && checkedBodies.has(request)) continue;
      const found = findUnstorableInput(request[part], maxDepth);
      if (found) return done(new ValidationFailedError([unstorableIssue(found, location, maxDepth)]));
    }
    done();
  });
}
