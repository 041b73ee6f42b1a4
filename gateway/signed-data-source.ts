import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { signPrincipal } from '../platform/auth/internal-signature.js';
import { DependencyUnavailableError, isDependencyUnavailable } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import type { Logger } from '../platform/logger.js';
import { subgraphFetcher } from './subgraph-fetcher.js';

type FetchResponse = Parameters<RemoteGraphQLDataSource['didEncounterError']>[2];

/**
 * Reaches a subgraph service over HTTP (distributed topology), carrying the caller's identity in a signed header
 * and the request id, so logs of every process can be joined on it. Fetches that nothing can have run are retried
 * (subgraph-fetcher.ts); a service still unreachable after that is UNAVAILABLE (503, retry later), not a bug.
 */
export class SignedRemoteDataSource extends RemoteGraphQLDataSource<GraphQLContext & Record<string, any>> {
  constructor(
    url: string,
    private readonly internalSecret: string,
    logger: Logger,
  ) {
    super({ url });
    this.fetcher = subgraphFetcher({
      onRetry: ({ attempt, reason }) => logger.warn({ subgraphUrl: url, attempt, reason }, 'retrying a subgraph fetch that did not run'),
    });
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GraphQLContext & Record<string, any>>): void {
    const headers = request.http?.headers;
    if (!headers) return;
    // Introspection of subgraph SDL at start-up has no caller.
    const principal = 'principal' in context ? (context.principal ?? null) : null;
    for (const [name, value] of Object.entries(signPrincipal(principal, this.internalSecret))) headers.set(name, value);
    if ('requestId' in context && context.requestId) headers.set('x-request-id', String(context.requestId));
  }

  /** The service unreachable, or still closing after the retries (its 503): the caller gets UNAVAILABLE. */
  override didEncounterError(error: Error, _request: unknown, response?: FetchResponse): never {
    if (response?.status === 503 || isDependencyUnavailable(error)) throw new DependencyUnavailableError(error);
    throw error;
  }
}
