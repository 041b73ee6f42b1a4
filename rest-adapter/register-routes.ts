import type { ApolloServer } from '@apollo/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../platform/auth/principal.js';
import { TrellisError, UnauthenticatedError } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { executeInSubgraph, executeThroughGateway, type LocalExecutor } from './execute.js';
import { serveEventStream, type SubscriptionExecutor } from './sse.js';
import { FAMILY_MOUNTS, type Family, type RestRoute } from './route.js';

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
export function registerRoutes(app: FastifyInstance, routes: RestRoute[], services: RouteServices): void {
  for (const route of routes) {
    const url = `${FAMILY_MOUNTS[route.family]}${route.path}`;
    app.route({
      method: route.method,
      url,
      config: { family: route.family },
      bodyLimit: route.bodyLimit,
      // The operation validates the body itself (same schema); Fastify only records what it found.
      attachValidation: route.bodyValidation === 'operation',
      schema: {
        summary: route.summary,
        tags: [route.family],
        ...(route.schema?.body ? { body: route.schema.body } : {}),
        ...(route.schema?.params ? { params: route.schema.params } : {}),
        ...(route.schema?.querystring ? { querystring: route.schema.querystring } : {}),
        ...(route.schema?.response ? { response: { [route.status ?? 200]: route.schema.response } } : {}),
      },
      // Authentication runs before body validation, so an anonymous caller learns nothing about the schema.
      preValidation: async (request) => {
        const principal = await services.principalOf(request);
        if (principal === null || (principal === undefined && route.auth !== 'none')) throw new UnauthenticatedError(
          principal === null ? 'Invalid or revoked API key' : undefined,
        );
        request.principal = principal ?? null;
      },
      handler: async (request, reply) => {
        const input = {
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
        const controller = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableFinished) controller.abort();
        };
        reply.raw.once('close', onClose);
        const context = { principal: request.principal, requestId: String(request.id), logger: request.log, signal: controller.signal };
        const variables = route.variables(input);
        const local =
          route.subgraph && services.executeLocal
            ? await executeInSubgraph(services.executeLocal, route.subgraph, route.operation, variables, context)
            : undefined;
        const data = local ?? (await executeThroughGateway(services.apollo, route.operation, variables, context));
        reply.code(route.status ?? 200);
        return route.response(data, input);
      },
    });
  }
}
