import { randomUUID } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { apiKeyFromAuthorization } from '../../../platform/auth/credentials.js';
import type { Principal } from '../../../platform/auth/principal.js';
import { publicErrorHooks } from '../../../platform/graphql/graphql-ws-errors.js';
import type { Logger } from '../../../platform/logger.js';
import { handleUpgrades } from '../../../platform/http/upgrade-paths.js';
import type { HttpExtension, SubgraphHttpContext } from '../../../platform/subgraph.js';
import type { AutomationsServices } from '../services.js';
import type { SubscriptionContext } from './subscription-context.js';

/** Where dashboards subscribe: the Apollo gateway cannot execute subscriptions, so this subgraph serves them. */
export const SUBSCRIPTIONS_PATH = '/graphql/ws';

/**
 * A graphql-ws endpoint on the HTTP server that hosts the automations subgraph (the platform's main port in the
 * one-process topology; the subgraph service's port when it runs alone). Clients authenticate with
 * `connectionParams: { authorization: 'Bearer <key>' }` or an Authorization header on the upgrade request.
 *
 * A connection keeps its key, not just the principal it had when it opened: when a principal changes (a key
 * revoked, a user removed from a team, a role changed: identity announces it, from any process), every affected
 * connection authenticates its key again. One that lost any right it had (the key revoked, a team left) is closed
 * with 4403 Forbidden, ending its subscriptions; one that only gained rights runs its next operations with them.
 */
export function subscriptionEndpoint(schema: GraphQLSchema, services: AutomationsServices, http: SubgraphHttpContext): HttpExtension {
  return (app) => {
    const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
    const connections = new Map<object, OpenConnection>();
    const server = useServer<Record<string, unknown> | undefined>(
      {
        schema,
        // Error codes, masking and operation limits as on /graphql (platform/error-catalogue.ts).
        ...publicErrorHooks(schema, app.log as Logger, http.operationLimits),
        onConnect: async (ctx) => {
          const header = typeof ctx.connectionParams?.authorization === 'string' ? ctx.connectionParams.authorization : ctx.extra.request.headers.authorization;
          const key = apiKeyFromAuthorization(header);
          const principal = key === undefined ? null : await http.authenticate(key);
          if (!principal || key === undefined) return false; // closes with 4403 Forbidden
          connections.set(ctx.extra, { key, principal, socket: ctx.extra.socket });
          return true;
        },
        onClose: (ctx) => {
          connections.delete(ctx.extra);
        },
        context: (ctx): SubscriptionContext => ({
          // Read when an operation authorizes, so operations started after a change run with the new rights.
          get principal() {
            return connections.get(ctx.extra)?.principal ?? null;
          },
          requestId: randomUUID(),
          logger: app.log,
          automations: services,
        }),
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
    handleUpgrades(app.server, SUBSCRIPTIONS_PATH, (request, socket, head) => {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    });
    app.addHook('preClose', async () => {
      stopFollowing();
      await server.dispose();
      wss.close();
    });
  };
}

interface OpenConnection {
  key: string;
  principal: Principal;
  socket: WebSocket;
}

/** Whether `after` lacks a right `before` had: open subscriptions were authorized with `before`. */
function lostRights(before: Principal, after: Principal): boolean {
  if (before.userId !== after.userId) return true;
  if (before.isAdmin && !after.isAdmin) return true;
  for (const [team, role] of Object.entries(before.teams)) {
    const now = after.teams[team];
    if (now === undefined || (role === 'ADMIN' && now !== 'ADMIN')) return true;
  }
  return before.projectAdmin.some((name) => !after.projectAdmin.includes(name)) || before.registryAdmin.some((name) => !after.registryAdmin.includes(name));
}
