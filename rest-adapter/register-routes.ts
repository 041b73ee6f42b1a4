import { Readable } from 'node:stream';
import type { ApolloServer } from '@apollo/server';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../platform/auth/principal.js';
import { RequestAbortController } from '../platform/async/request-abort-controller.js';
import { NotFoundError, TrellisError, UnauthenticatedError, ValidationFailedError } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { executeInSubgraph, executeThroughGateway, type LocalExecutor } from './execute.js';
import { ENSURE_PROJECT_OPERATION, KnownProjects, PROJECT_EXISTS_OPERATION } from './known-projects.js';
import { ajv } from '../platform/validation.js';
import { serveEventStream, type SubscriptionExecutor } from './sse.js';
import { FAMILY_MOUNTS, type Family, type RestRoute, type RouteInput, type UnknownPathRule } from './route.js';
import { UNKNOWN_PATH_RULES } from './routes/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which family's error conventions apply to this route. */
    family?: Family;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface RouteServices {
  apollo: ApolloServer<GraphQLContext>;
  /** Resolves the request's credentials; undefined = no credentials sent, null = credentials rejected. */
  principalOf(request: FastifyRequest): Promise<Principal | null | undefined>;
  /** Runs a subgraph's subscription for routes with `sse` (absent: such routes answer 503 when streaming). */
  subscribe?: SubscriptionExecutor;
  /** Runs operations of routes that name their `subgraph` directly on it, when it runs in this process. */
  executeLocal?: LocalExecutor;
}

/** Serves every route of the table: authenticate, validate (Fastify schema), run the operation, shape the reply. */
export function registerRoutes(app: FastifyInstance, routes: RestRoute[], services: RouteServices, unknownPaths = UNKNOWN_PATH_RULES): void {
  const projects = new KnownProjects();
  for (const rule of unknownPaths.filter((candidate) => routes.some((route) => route.family === candidate.family))) registerUnknownPaths(app, rule);
  for (const route of routes.filter((candidate) => !candidate.multipart)) registerRoute(app, route, services, projects);
  // Multipart parsing is registered in an encapsulated context per route, so it applies to those routes only.
  for (const route of routes.filter((candidate) => candidate.multipart)) {
    void app.register(async (scope) => {
      await scope.register(fastifyMultipart, {
        attachFieldsToBody: 'keyValues',
        limits: { fileSize: route.multipart!.maxFileBytes, fields: route.multipart!.maxFields ?? 20, files: 1 },
        throwFileSizeLimit: true,
      });
      registerRoute(scope, route, services, projects);
    });
  }
}

/** A not-found handler scoped to the family's mount; its error leaves through the error handler, in the family's shape. */
function registerUnknownPaths(app: FastifyInstance, rule: UnknownPathRule): void {
  void app.register(
    async (scope) => {
      scope.setNotFoundHandler(async (request) => {
        throw new NotFoundError(rule.message(request.method, request.url.split('?')[0]!));
      });
    },
    { prefix: FAMILY_MOUNTS[rule.family] },
  );
}

function registerRoute(app: FastifyInstance, route: RestRoute, services: RouteServices, projects: KnownProjects): void {
  const url = `${FAMILY_MOUNTS[route.family]}${route.path}`;
  app.route({
    method: route.method,
    url,
    config: { family: route.family },
    bodyLimit: route.bodyLimit,
    // The operation validates the body itself (same schema), so the edge does not validate it a second time: the
    // schema stays declared for OpenAPI, and the edge checks only the body's JSON type (an array where an object
    // belongs is no request the operation can account for).
    ...(route.bodyValidation === 'operation'
      ? {
          validatorCompiler: ({ schema, httpPart }: { schema: object; httpPart?: string }) => {
            const type = (schema as { type?: unknown }).type;
            return ajv.compile(httpPart === 'body' ? (type === undefined ? {} : { type }) : schema);
          },
        }
      : {}),
    schema: {
      summary: route.summary,
      tags: [route.family],
      ...(route.multipart ? { consumes: ['multipart/form-data'] } : {}),
      ...(route.schema?.body ? { body: route.schema.body } : {}),
      ...(route.schema?.params ? { params: route.schema.params } : {}),
      ...(route.schema?.querystring ? { querystring: route.schema.querystring } : {}),
      ...(route.schema?.response ? { response: { [route.status ?? 200]: route.schema.response } } : {}),
    },
    // Authentication runs on the headers, before the body is read: an anonymous caller or a bad key is refused
    // without reading (or inviting, with 100 Continue) a body, and learns nothing about the schema.
    onRequest: async (request) => {
      const principal = await services.principalOf(request);
      if (principal === null || (principal === undefined && route.auth !== 'none')) throw new UnauthenticatedError(
        principal === null ? 'Invalid or revoked API key' : undefined,
      );
      request.principal = principal ?? null;
    },
    handler: async (request, reply) => {
      const input: RouteInput = {
        body: request.body,
        params: request.params,
        query: request.query,
        principal: request.principal,
        headers: request.headers,
      };
      if (route.sse?.when(input)) {
        if (!services.subscribe) throw new TrellisError(503, 'UNAVAILABLE', 'Streaming responses are not available in this deployment');
        return serveEventStream(request, reply, route.sse, input, route.family, services.subscribe);
      }
      // A client that goes away cancels the work it asked for (resolvers may pass the signal upstream).
      const controller = new RequestAbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      const context = { principal: request.principal, requestId: String(request.id), logger: request.log, signal: controller.signal };
      const run = async (variables: Record<string, unknown>) => {
        const local =
          route.subgraph && services.executeLocal
            ? await executeInSubgraph(services.executeLocal, route.subgraph, route.operation, variables, context, {
                projectReference: route.readsProject !== undefined,
              })
            : undefined;
        return local ?? (await executeThroughGateway(services.apollo, route.operation, variables, context));
      };
      const execute = route.issueLocation
        ? (variables: Record<string, unknown>) => run(variables).catch((error: unknown) => Promise.reject(atRequestLocations(error, route, input)))
        : run;
      const project = route.ensureProject?.(input);
      if (project) await projects.ensure(project, () => executeThroughGateway(services.apollo, ENSURE_PROJECT_OPERATION, { ...project }, context));
      const read = route.readsProject?.(input);
      if (read) {
        await projects.ensure(read, async () => {
          const data = await executeThroughGateway(services.apollo, PROJECT_EXISTS_OPERATION, { ...read }, context);
          if (!data.project) throw new NotFoundError(`Project ${read.entity}/${read.project} not found`);
        });
      }
      if (route.stream) return streamPages(route, input, execute, request, reply);
      const data = await execute(route.variables(input));
      reply.code(route.responseStatus?.(data) ?? route.status ?? 200);
      if (route.contentType) reply.type(route.contentType);
      return route.response(data, input);
    },
  });
}

/** Validation issues of the operation (at GraphQL paths) at the places of the REST request (`route.issueLocation`). */
function atRequestLocations(error: unknown, route: RestRoute, input: RouteInput): unknown {
  if (!(error instanceof TrellisError) || error.code !== 'VALIDATION_FAILED' || !error.issues) return error;
  return new ValidationFailedError(
    error.issues.map((issue) => ({ ...issue, loc: route.issueLocation!(issue.loc, input) })),
    error.message,
  );
}

/**
 * The first page runs before anything is sent, so its errors still get the family's error shape; later pages are
 * written as they arrive. An error after the first page can only end the stream (the status is already sent).
 */
async function streamPages(
  route: RestRoute,
  input: RouteInput,
  execute: (variables: Record<string, unknown>) => Promise<Record<string, any>>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const stream = route.stream!;
  let page = stream.page(await execute(stream.pageVariables(input, null)), input);
  const encoding = stream.encode?.(input);
  const line = encoding ? encoding.line : (item: unknown) => `${JSON.stringify(item)}\n`;
  async function* lines(): AsyncGenerator<string> {
    if (encoding) yield encoding.header;
    while (true) {
      if (page.items.length > 0) yield page.items.map(line).join('');
      if (!page.nextCursor) return;
      try {
        page = stream.page(await execute(stream.pageVariables(input, page.nextCursor)), input);
      } catch (error) {
        request.log.error({ err: error }, 'streamed response failed after its first page');
        throw error;
      }
    }
  }
  reply.code(route.status ?? 200).type(encoding?.contentType ?? stream.contentType ?? 'application/jsonl');
  return reply.send(Readable.from(lines()));
}
