import type http from 'node:http';
import { GraphQLError, print, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createClient, type Client } from 'graphql-ws/client';
import { useServer } from 'graphql-ws/use/ws';
import WebSocket, { WebSocketServer } from 'ws';
import { signPrincipal, verifyPrincipal } from '../auth/internal-signature.js';
import { DependencyUnavailableError, TrellisError, isDependencyUnavailable, trellisErrorFromGraphQL } from '../errors.js';
import { handleUpgrades } from '../http/upgrade-paths.js';
import type { Logger } from '../logger.js';
import type { GraphQLContext } from './context.js';

/**
 * Subscriptions across processes (distributed topology): a subgraph service serves its Subscription fields over
 * graphql-ws, and the gateway process (whose REST adapter runs them for streaming routes) reaches it as a client.
 * Each operation carries the caller's identity signed like the gateway's HTTP requests (in the operation's
 * `extensions`: one connection carries many callers); the connection itself must be signed too.
 */
/** Internal (platform processes only, signed identity); distinct from any public subscription endpoint. */
export const SUBSCRIPTION_PATH = '/graphql/internal-ws';

/** `contextFor`: the subgraph's own context for its subscriptions (StartedSubgraph.subscriptionContext). */
export function serveSubscriptions(
  server: http.Server,
  schema: GraphQLSchema,
  secret: string,
  logger: Logger,
  contextFor: (base: GraphQLContext) => GraphQLContext = (base) => base,
): () => Promise<void> {
  // Upgrades are routed by path (platform/http/upgrade-paths.ts): a WebSocketServer bound to the HTTP server would
  // answer 400 to every other path, which would break other WebSocket endpoints on the same server.
  const sockets = new WebSocketServer({ noServer: true });
  const stopUpgrades = handleUpgrades(server, SUBSCRIPTION_PATH, (request, socket, head) => {
    sockets.handleUpgrade(request, socket, head, (client) => sockets.emit('connection', client, request));
  });
  // Per connection: the operations in flight, so a completed or dropped one aborts its context's signal.
  const inFlight = new WeakMap<object, Map<string, AbortController>>();
  const controllersOf = (socket: object) => {
    let controllers = inFlight.get(socket);
    if (!controllers) {
      const created = new Map<string, AbortController>();
      inFlight.set(socket, created);
      (socket as WebSocket).once('close', () => {
        for (const controller of created.values()) controller.abort();
        created.clear();
      });
      controllers = created;
    }
    return controllers;
  };
  const dispose = useServer(
    {
      schema,
      onConnect: (ctx) => {
        try {
          verifyPrincipal((ctx.connectionParams ?? {}) as Record<string, string>, secret);
          return true;
        } catch {
          return false;
        }
      },
      context: (ctx, id, payload): GraphQLContext => {
        const principal = verifyPrincipal((payload.extensions ?? {}) as Record<string, string>, secret);
        const controller = new AbortController();
        controllersOf(ctx.extra.socket).set(id, controller);
        return contextFor({ principal, requestId: id, logger: logger as GraphQLContext['logger'], signal: controller.signal });
      },
      onSubscribe: (_ctx, _id, payload) => {
        try {
          verifyPrincipal((payload.extensions ?? {}) as Record<string, string>, secret);
        } catch (error) {
          return [new TrellisError(401, 'UNAUTHENTICATED', (error as Error).message).toGraphQLError()];
        }
        return undefined;
      },
      // graphql-js reports variables that do not fit their types without a code or path; coded here, the caller's
      // public endpoint answers them as BAD_USER_INPUT (as in one process) rather than as an internal error.
      onNext: (_ctx, _id, _payload, _args, result) => {
        if (!result.errors?.some((error) => !error.path && error.extensions.code === undefined)) return undefined;
        return {
          ...result,
          errors: result.errors.map((error) =>
            error.path || error.extensions.code !== undefined
              ? error
              : new GraphQLError(error.message, { nodes: error.nodes, originalError: error.originalError, extensions: { ...error.extensions, code: 'BAD_USER_INPUT' } }),
          ),
        };
      },
      onComplete: (ctx, id) => {
        const controllers = controllersOf(ctx.extra.socket);
        controllers.get(id)?.abort();
        controllers.delete(id);
      },
    },
    sockets,
  );
  return async () => {
    stopUpgrades();
    await dispose.dispose();
    sockets.close();
  };
}

/** The gateway process's side: one lazy graphql-ws client per subgraph service. */
export class RemoteSubscriptions {
  private readonly clients = new Map<string, Client>();

  constructor(private readonly secret: string) {}

  subscribe(url: string, document: DocumentNode, variables: Record<string, unknown>, context: GraphQLContext): AsyncIterableIterator<ExecutionResult> {
    const iterator = this.clientFor(url).iterate({
      query: print(document),
      variables,
      extensions: signPrincipal(context.principal, this.secret),
    });
    context.signal?.addEventListener('abort', () => void iterator.return?.(), { once: true });
    return mapErrors(iterator as AsyncIterableIterator<ExecutionResult>);
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((client) => client.dispose()));
    this.clients.clear();
  }

  private clientFor(url: string): Client {
    let client = this.clients.get(url);
    if (!client) {
      const target = new URL(url);
      target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
      target.pathname = SUBSCRIPTION_PATH;
      client = createClient({
        url: target.toString(),
        webSocketImpl: WebSocket,
        lazy: true,
        retryAttempts: 0,
        connectionParams: () => signPrincipal(null, this.secret),
      });
      this.clients.set(url, client);
    }
    return client;
  }
}

/**
 * Results keep their errors (with the subgraph's extensions; internal ones masked); a service that cannot be reached
 * becomes UNAVAILABLE (503), another broken connection a 502.
 */
function mapErrors(iterator: AsyncIterableIterator<ExecutionResult>): AsyncIterableIterator<ExecutionResult> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      try {
        const result = await iterator.next();
        if (!result.done && result.value.errors?.length) {
          const errors = result.value.errors.map((error) => {
            const mapped = trellisErrorFromGraphQL(error);
            // A deliberate error keeps what else the service said about it (the argument path in `field`, where in
            // the result): a public graphql-ws endpoint answers it as in one process. An internal one stays masked.
            if (mapped.code === 'INTERNAL') return mapped.toGraphQLError();
            return new GraphQLError(mapped.message, { path: error.path, extensions: { ...error.extensions, ...mapped.extensions } });
          });
          return { done: false, value: { ...result.value, errors } };
        }
        return result;
      } catch (error) {
        // The service unreachable or gone (refused, dropped, shutting down): retry later. Else it failed.
        if (isDependencyUnavailable(error)) throw new DependencyUnavailableError(error);
        throw new TrellisError(502, 'UPSTREAM_ERROR', 'The streaming connection to the subgraph service failed');
      }
    },
    return() {
      return iterator.return?.() ?? Promise.resolve({ done: true, value: undefined });
    },
  };
}
