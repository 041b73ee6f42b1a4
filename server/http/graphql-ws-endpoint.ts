import { randomUUID } from 'node:crypto';
import type { ApolloServer } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  getOperationAST,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { apiKeyFromAuthorization } from '../../platform/auth/credentials.js';
import { isDependencyUnavailable } from '../../platform/errors.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { publicErrorHooks } from '../../platform/graphql/graphql-ws-errors.js';
import { handleUpgrades } from '../../platform/http/upgrade-paths.js';
import type { Logger } from '../../platform/logger.js';
import type { HttpExtension, SubgraphHttpContext } from '../../platform/subgraph.js';
import type { SubgraphSubscriptions } from '../subgraph-subscriptions.js';

/** The one public graphql-ws endpoint, for the whole graph. */
export const GRAPHQL_WS_PATH = '/graphql/ws';

export interface GraphqlWsEndpointOptions {
  /** The gateway: queries and mutations run through it, exactly as on POST /graphql. */
  apollo: ApolloServer<GraphQLContext>;
  /** The API schema the gateway serves (createGateway's onApiSchema). */
  apiSchema: GraphQLSchema;
  /** Routes subscriptions to the subgraph that owns their root field (the streaming REST routes use it too). */
  subscriptions: SubgraphSubscriptions;
  /** Authentication, principal changes and operation limits. */
  http: SubgraphHttpContext;
}

/**
 * `/graphql/ws` (graphql-ws), owned by the composition root: the Apollo gateway cannot execute subscriptions, so
 * this endpoint routes each subscription by its root field to the owning subgraph — run on its schema in this
 * process, or on its service over the signed internal endpoint — while queries and mutations go through the
 * gateway's `executeOperation`, so every field of the graph works here, in both topologies.
 *
 * Clients authenticate with `connectionParams: { authorization: 'Bearer <key>' }` or an Authorization header on the
 * upgrade request. A connection keeps its key, not just the principal it had when it opened: when a principal
 * changes (a key revoked, a user removed from a team, a role changed: identity announces it, from any process),
 * every affected connection authenticates its key again. One that lost any right it had is closed with 4403
 * Forbidden, ending its subscriptions (whichever subgraph serves them); one that only gained rights runs its next
 * operations with them.
 */
/** WebSocket's close code for a server that cannot serve now (RFC 6455 registry: "Try Again Later"). */
const TRY_AGAIN_LATER = 1013;

export function graphqlWsEndpoint(options: GraphqlWsEndpointOptions): HttpExtension {
  const { apollo, apiSchema, subscriptions, http } = options;
  return (app) => {
    const logger = app.log as Logger;
    const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
    const connections = new Map<object, OpenConnection>();
    // Error codes, masking and operation limits as on /graphql (platform/error-catalogue.ts). Every document is
    // validated against the gateway's API schema with /graphql's rules and limits, so what is valid, unknown or
    // too expensive is judged as on /graphql for the whole graph (and introspection shows the whole graph).
    const hooks = publicErrorHooks(apiSchema, logger, http.operationLimits);
    // Owner of each subscription document (set when it is validated, read when it runs).
    const owners = new WeakMap<DocumentNode, string>();
    // Results of the gateway: their errors already left through its formatError (public, logged once).
    const fromGateway = new WeakSet<ExecutionResult>();

    const server = useServer<Record<string, unknown> | undefined>(
      {
        schema: apiSchema,
        onSubscribe: (ctx, id, payload) => {
          const prepared = hooks.onSubscribe(ctx, id, payload);
          if (!prepared || Array.isArray(prepared)) return prepared;
          const args = prepared as ExecutionArgs;
          const operation = getOperationAST(args.document, args.operationName);
          if (operation?.operation !== 'subscription') return args;
          const fragments = args.document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION);
          const field = rootField(operation.selectionSet, fragments);
          const owner = field === undefined ? undefined : subscriptions.ownerOf(field);
          const schema = owner === undefined ? undefined : subscriptions.schemaOf(owner);
          if (owner === undefined || !schema) return [validationError(`No subgraph serves the subscription field "${field}"`)];
          // Also against the owning subgraph's schema: a subscription runs on that subgraph alone (there is no query
          // planning for subscriptions), so selecting a field another subgraph adds to the event's type is refused
          // here rather than silently missing from every event.
          const invalid = validate(schema, args.document, specifiedRules);
          if (invalid.length > 0) return invalid.map((error) => validationError(`${error.message} (subscriptions select only fields of the ${owner} subgraph)`, error));
          owners.set(args.document, owner);
          return { ...args, schema };
        },
        onNext: (ctx, id, payload, args, result) => (fromGateway.has(result as ExecutionResult) ? undefined : hooks.onNext(ctx, id, payload, args, result)),
        onError: hooks.onError,
        onConnect: async (ctx) => {
          const header = typeof ctx.connectionParams?.authorization === 'string' ? ctx.connectionParams.authorization : ctx.extra.request.headers.authorization;
          const key = apiKeyFromAuthorization(header);
          let principal: Principal | null;
          try {
            principal = key === undefined ? null : await http.authenticate(key);
          } catch (error) {
            if (!isDependencyUnavailable(error)) throw error;
            // The database is unreachable: WebSocket's 1013 Try Again Later (graphql-ws clients retry it; a thrown
            // error would be 4500, which they treat as fatal). The 4403 graphql-ws then sends is ignored by ws.
            logger.warn({ err: error }, 'graphql-ws connection refused: the database is unavailable');
            ctx.extra.socket.close(TRY_AGAIN_LATER, 'The platform cannot reach its database; try again later');
            return false;
          }
          if (!principal || key === undefined) return false; // closes with 4403 Forbidden
          connections.set(ctx.extra, { key, principal, socket: ctx.extra.socket, operations: new Map() });
          return true;
        },
        onClose: (ctx) => {
          const connection = connections.get(ctx.extra);
          for (const controller of connection?.operations.values() ?? []) controller.abort();
          connections.delete(ctx.extra);
        },
        onComplete: (ctx, id) => {
          const operations = connections.get(ctx.extra)?.operations;
          operations?.get(id)?.abort();
          operations?.delete(id);
        },
        // One context per operation, with the principal the connection has when the operation starts: rights that
        // are lost later close the connection (below), so a running operation never outlives them.
        context: (ctx, id): GraphQLContext => {
          const connection = connections.get(ctx.extra);
          const controller = new AbortController();
          connection?.operations.set(id, controller);
          return { principal: connection?.principal ?? null, requestId: randomUUID(), logger: app.log, signal: controller.signal };
        },
        execute: async (args) => {
          const response = await apollo.executeOperation(
            { query: args.document, operationName: args.operationName ?? undefined, variables: (args.variableValues ?? undefined) as Record<string, unknown> | undefined },
            { contextValue: args.contextValue as GraphQLContext },
          );
          const result: ExecutionResult =
            response.body.kind === 'single'
              ? {
                  ...(response.body.singleResult.data !== undefined ? { data: response.body.singleResult.data as ExecutionResult['data'] } : {}),
                  ...(response.body.singleResult.errors
                    ? { errors: response.body.singleResult.errors.map((error) => new GraphQLError(error.message, { path: error.path, extensions: error.extensions })) }
                    : {}),
                }
              : { errors: [new GraphQLError('Incremental delivery (@defer, @stream) is not served over graphql-ws', { extensions: { code: 'BAD_USER_INPUT', status: 400 } })] };
          fromGateway.add(result);
          return result;
        },
        subscribe: async (args) => {
          const owner = owners.get(args.document)!;
          const context = args.contextValue as GraphQLContext;
          // A service codes variables that do not fit (serveSubscriptions), as graphql-js here does not.
          const variables = (args.variableValues ?? {}) as Record<string, unknown>;
          return subscriptions.subscribe(owner, args.document, variables, context, 'interpreted');
        },
      },
      wss,
    );

    const stopFollowing = http.onPrincipalChanged((userId) => {
      for (const connection of connections.values()) {
        if (userId === null || connection.principal.userId === userId) void reauthenticate(connection);
      }
    });
    const reauthenticate = async (connection: OpenConnection) => {
      let current: Principal | null;
      try {
        current = await http.authenticate(connection.key);
      } catch (error) {
        // Cannot tell whether the rights still hold: fail closed; the client may reconnect.
        app.log.warn({ err: error }, 'graphql-ws: re-authentication failed; closing the connection');
        current = null;
      }
      if (current && !lostRights(connection.principal, current)) {
        connection.principal = current;
        return;
      }
      connection.socket.close(CloseCode.Forbidden, current ? 'Forbidden: the API key\'s rights changed' : 'Forbidden: the API key is no longer valid');
    };
    const stopUpgrades = handleUpgrades(app.server, GRAPHQL_WS_PATH, (request, socket, head) => {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    });
    app.addHook('preClose', async () => {
      stopFollowing();
      stopUpgrades();
      await server.dispose();
      wss.close();
    });
  };
}

interface OpenConnection {
  key: string;
  principal: Principal;
  socket: WebSocket;
  /** Per operation id: aborted when the operation completes or the connection closes (context.signal). */
  operations: Map<string, AbortController>;
}

/** Whether `after` lacks a right `before` had: open subscriptions were authorized with `before`. */
export function lostRights(before: Principal, after: Principal): boolean {
  if (before.userId !== after.userId) return true;
  if (before.isAdmin && !after.isAdmin) return true;
  for (const [team, role] of Object.entries(before.teams)) {
    const now = after.teams[team];
    if (now === undefined || (role === 'ADMIN' && now !== 'ADMIN')) return true;
  }
  return before.projectAdmin.some((name) => !after.projectAdmin.includes(name)) || before.registryAdmin.some((name) => !after.registryAdmin.includes(name));
}

/** The subscription's root field (validation allows exactly one), looking through fragments. */
function rootField(selectionSet: SelectionSetNode, fragments: FragmentDefinitionNode[]): string | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== '__typename') return selection.name.value;
      continue;
    }
    const nested =
      selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragments.find((fragment) => fragment.name.value === selection.name.value)?.selectionSet;
    const field = nested ? rootField(nested, fragments) : undefined;
    if (field) return field;
  }
  return undefined;
}

function validationError(message: string, from?: GraphQLError): GraphQLError {
  return new GraphQLError(message, { nodes: from?.nodes, source: from?.source, positions: from?.positions, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
}
