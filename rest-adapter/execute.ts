import type { ApolloServer } from '@apollo/server';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { trellisErrorFromGraphQL } from '../platform/errors.js';

/**
 * Runs one operation through the gateway exactly as a GraphQL client's request would run (same validation,
 * planning, subgraphs and error masking), and returns its data or throws its first error as a TrellisError.
 */
export async function executeThroughGateway(
  apollo: ApolloServer<GraphQLContext>,
  operation: string,
  variables: Record<string, unknown>,
  context: GraphQLContext,
): Promise<Record<string, any>> {
  const response = await apollo.executeOperation({ query: operation, variables }, { contextValue: context });
  if (response.body.kind !== 'single') throw new Error('incremental delivery is not used by REST routes');
  const { data, errors } = response.body.singleResult;
  if (errors && errors.length > 0) throw trellisErrorFromGraphQL(errors[0]!);
  return (data ?? {}) as Record<string, any>;
}
