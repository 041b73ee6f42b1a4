import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { signPrincipal } from '../platform/auth/internal-signature.js';
import type { GraphQLContext } from '../platform/graphql/context.js';

/**
 * Reaches a subgraph service over HTTP (distributed topology), carrying the caller's identity in a signed header
 * and the request id, so logs of every process can be joined on it.
 */
export class SignedRemoteDataSource extends RemoteGraphQLDataSource<GraphQLContext & Record<string, any>> {
  constructor(
    url: string,
    private readonly internalSecret: string,
  ) {
    super({ url });
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GraphQLContext & Record<string, any>>): void {
    const headers = request.http?.headers;
    if (!headers) return;
    // Introspection of subgraph SDL at start-up has no caller.
    const principal = 'principal' in context ? (context.principal ?? null) : null;
    for (const [name, value] of Object.entries(signPrincipal(principal, this.internalSecret))) headers.set(name, value);
    if ('requestId' in context && context.requestId) headers.set('x-request-id', String(context.requestId));
  }
}
