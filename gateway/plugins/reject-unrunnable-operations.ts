import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { BadRequestError } from '../../platform/errors.js';

/**
 * Requests the gateway cannot run are the request's fault: without this, @apollo/gateway throws for them while
 * executing and Apollo answers HTTP 500 "Internal server error". Rejected here, before execution, as
 * BAD_USER_INPUT with HTTP 400: a document without the operation asked for (or several and no operationName), and
 * subscriptions (served over graphql-ws at /graphql/ws by the composition root, which routes each to the subgraph
 * that owns it: the gateway cannot execute them).
 */
export function rejectUnrunnableOperations<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, request }) {
          if (!operation) {
            throw badRequest(
              request.operationName
                ? `Unknown operation named "${request.operationName}"`
                : 'Must provide operation name if query contains multiple operations',
            );
          }
          if (operation.operation === 'subscription') {
            // The path of the public graphql-ws endpoint (server/http/graphql-ws-endpoint.ts).
            throw badRequest('Subscriptions are served over graphql-ws at /graphql/ws, not by /graphql');
          }
        },
      };
    },
  };
}

function badRequest(message: string): GraphQLError {
  const error = new BadRequestError(message);
  return new GraphQLError(message, { extensions: { ...error.extensions, http: { status: error.status } } });
}
