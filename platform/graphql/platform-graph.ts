import type { ApolloServer } from '@apollo/server';
import type { FastifyBaseLogger } from 'fastify';
import { signPrincipal } from '../auth/internal-signature.js';
import type { Principal } from '../auth/principal.js';
import { TrellisError, trellisErrorFromGraphQL } from '../errors.js';
import type { Logger } from '../logger.js';
import type { GraphQLContext } from './context.js';

/** Who an operation runs for: the caller of the request that needs it, never a privileged identity of its own. */
export interface GraphCaller {
  principal: Principal;
  requestId: string;
  signal?: AbortSignal;
}

/**
 * The federated graph as a client, for a subgraph that needs another subgraph's data (subgraphs never read each
 * other's tables). Operations run through the gateway with the caller's identity, so the owning subgraph applies its
 * own access rules. Returns `data`, or throws the first error as a TrellisError (status and code preserved).
 */
export interface PlatformGraph {
  execute<T = Record<string, any>>(operation: string, variables: Record<string, unknown>, caller: GraphCaller): Promise<T>;
}

/**
 * One-process topology: the gateway in this process, bound once it exists (subgraphs start before the gateway is
 * composed over them).
 */
export class InProcessGraph implements PlatformGraph {
  private apollo: ApolloServer<GraphQLContext> | undefined;

  constructor(private readonly logger: Logger) {}

  bind(apollo: ApolloServer<GraphQLContext>): void {
    this.apollo = apollo;
  }

  async execute<T>(operation: string, variables: Record<string, unknown>, caller: GraphCaller): Promise<T> {
    if (!this.apollo) throw new TrellisError(503, 'UNAVAILABLE', 'The platform graph is not ready yet');
    const context: GraphQLContext = {
      principal: caller.principal,
      requestId: caller.requestId,
      logger: this.logger as unknown as FastifyBaseLogger,
      ...(caller.signal ? { signal: caller.signal } : {}),
    };
    const response = await this.apollo.executeOperation({ query: operation, variables }, { contextValue: context });
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not used by platform graph operations');
    return resultOf<T>(response.body.singleResult);
  }
}

/**
 * Distributed topology: a subgraph service reaches the gateway process over HTTP (`TRELLIS_GATEWAY_URL`), carrying
 * the caller's identity in the same signed header the gateway sends to subgraph services.
 */
export class RemoteGraph implements PlatformGraph {
  constructor(
    private readonly gatewayUrl: string,
    private readonly internalSecret: string,
  ) {}

  async execute<T>(operation: string, variables: Record<string, unknown>, caller: GraphCaller): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': caller.requestId, ...signPrincipal(caller.principal, this.internalSecret) },
        body: JSON.stringify({ query: operation, variables }),
        signal: caller.signal,
      });
    } catch (error) {
      throw new TrellisError(503, 'UNAVAILABLE', 'The platform gateway is not reachable', { cause: error });
    }
    const body = (await response.json().catch(() => undefined)) as { data?: unknown; errors?: GraphErrors } | undefined;
    if (!body) throw new TrellisError(502, 'UPSTREAM_ERROR', `The platform gateway answered ${response.status} without a GraphQL body`);
    return resultOf<T>(body);
  }
}

/** A subgraph service started without TRELLIS_GATEWAY_URL: features that need another subgraph say so. */
export class UnavailableGraph implements PlatformGraph {
  async execute<T>(): Promise<T> {
    throw new TrellisError(503, 'UNAVAILABLE', 'This service cannot reach the platform graph (set TRELLIS_GATEWAY_URL)');
  }
}

type GraphErrors = readonly { message: string; extensions?: Record<string, unknown> }[];

function resultOf<T>(result: { data?: unknown; errors?: GraphErrors }): T {
  if (result.errors && result.errors.length > 0) throw trellisErrorFromGraphQL(result.errors[0]!);
  return (result.data ?? {}) as T;
}
