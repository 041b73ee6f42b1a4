import type { ApolloServer } from '@apollo/server';
import { GraphQLError, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { TrellisError, trellisErrorFromGraphQL, unexpectedError } from '../platform/errors.js';
import { asProjectReference, type ProjectReferenceOperation } from './project-reference.js';

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

/**
 * Executes an operation on one subgraph's schema in this process; resolves undefined when that subgraph does not
 * run here (the caller then goes through the gateway).
 */
export type LocalExecutor = (
  subgraph: string,
  document: DocumentNode,
  variables: Record<string, unknown>,
  context: GraphQLContext,
) => Promise<ExecutionResult> | undefined;

const parsedOperations = new Map<string, ProjectReferenceOperation | { document: DocumentNode; variables?: undefined; data?: undefined }>();

/**
 * Runs a route's operation directly on the one subgraph it touches (no query planning, no result re-shaping),
 * for routes on a hot path. The operation is the route's own (not client-supplied), so the gateway's depth and
 * cost rules have nothing to add; errors are masked the same way: deliberate ones keep their code, anything
 * else is logged and becomes "Internal server error". With `projectReference`, a read through identity's
 * `project(entity, name)` root field runs as the subgraph's Project entity reference (project-reference.ts);
 * the caller has checked that the project exists.
 */
export async function executeInSubgraph(
  run: LocalExecutor,
  subgraph: string,
  operation: string,
  variables: Record<string, unknown>,
  context: GraphQLContext,
  options: { projectReference?: boolean } = {},
): Promise<Record<string, any> | undefined> {
  const key = `${options.projectReference ? 'reference' : 'plain'}:${operation}`;
  let parsed = parsedOperations.get(key);
  if (!parsed) {
    const document = parse(operation);
    parsed = (options.projectReference ? asProjectReference(document) : null) ?? { document };
    parsedOperations.set(key, parsed);
  }
  const pending = run(subgraph, parsed.document, parsed.variables?.(variables) ?? variables, context);
  if (!pending) return undefined;
  const { data, errors } = await pending;
  if (errors && errors.length > 0) throw deliberateError(errors[0]!, context);
  return parsed.data ? parsed.data(data ?? {}) : ((data ?? {}) as Record<string, any>);
}

function deliberateError(error: GraphQLError, context: GraphQLContext): TrellisError {
  if (error.originalError instanceof TrellisError) return error.originalError;
  // No resolver was reached (variables that do not fit the operation): the request's fault, as Apollo would say —
  // also when a scalar's parseValue threw (graphql-js and graphql-jit then keep its error as originalError).
  if (!error.path && (!error.originalError || error.message.startsWith('Variable "$'))) return new TrellisError(400, 'BAD_REQUEST', error.message);
  if (error.extensions?.code && error.extensions.code !== 'INTERNAL') return trellisErrorFromGraphQL(error);
  // A bug, or the database unreachable (UNAVAILABLE, retry later): platform/errors.ts decides which.
  const unexpected = unexpectedError(error);
  if (unexpected.code === 'INTERNAL') context.logger.error({ err: error.originalError ?? error }, 'unexpected error in a subgraph operation');
  return unexpected;
}
