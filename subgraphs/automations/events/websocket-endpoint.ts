import { randomUUID } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
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
 */
export function subscriptionEndpoint(schema: GraphQLSchema, services: AutomationsServices, http: SubgraphHttpContext): HttpExtension {
  return (app) => {
    const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
    const principals = new WeakMap<object, Principal>();
    const server = useServer<Record<string, unknown> | undefined>(
      {
        schema,
        // Error codes and masking as on /graphql (platform/error-catalogue.ts).
        ...publicErrorHooks(schema, app.log as Logger),
        onConnect: async (ctx) => {
          const header = typeof ctx.connectionParams?.authorization === 'string' ? ctx.connectionParams.authorization : ctx.extra.request.headers.authorization;
          const key = apiKeyFromAuthorization(header);
          const principal = key === undefined ? null : await http.authenticate(key);
          if (!principal) return false; // closes with 4403 Forbidden
          principals.set(ctx.extra, principal);
          return true;
        },
        context: (ctx): SubscriptionContext => ({
          principal: principals.get(ctx.extra) ?? null,
          requestId: randomUUID(),
          logger: app.log,
          automations: services,
        }),
      },
      wss,
    );
    handleUpgrades(app.server, SUBSCRIPTIONS_PATH, (request, socket, head) => {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    });
    app.addHook('preClose', async () => {
      await server.dispose();
      wss.close();
    });
  };
}
