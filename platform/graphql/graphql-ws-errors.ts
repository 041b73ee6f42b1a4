import { GraphQLError, getOperationAST, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import type { Logger } from '../logger.js';
import { limitedParseOptions, operationLimitRules, type OperationLimits } from './operation-limits.js';
import { toPublicError } from './public-errors.js';

/**
 * graphql-ws hooks that give a public graphql-ws endpoint (the platform's `/graphql/ws`) the gateway's error
 * conventions: graphql-ws alone sends graphql-js errors without codes (and closes the socket on a syntax error),
 * and would show any thrown error's message. Here the document is parsed and validated first, so its errors carry
 * Apollo's GRAPHQL_PARSE_FAILED / GRAPHQL_VALIDATION_FAILED; variables that do not fit (graphql-js reports them
 * without a path) are BAD_USER_INPUT; every error then leaves through toPublicError like the gateway's. The
 * gateway's operation limits (size, depth, cost, aliases, introspection) apply here too, queries and subscriptions.
 */
export function publicErrorHooks(
  schema: GraphQLSchema,
  logger: Logger,
  limits: OperationLimits,
): Required<Pick<ServerOptions<Record<string, unknown> | undefined>, 'onSubscribe' | 'onNext' | 'onError'>> {
  const parseOptions = limitedParseOptions(limits);
  const rules = [...specifiedRules, ...operationLimitRules(limits)];
  return {
    onSubscribe: (_ctx, _id, payload) => {
      let document: DocumentNode;
      try {
        document = parse(payload.query, parseOptions);
      } catch (error) {
        return [coded(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
      }
      const invalid = validate(schema, document, rules);
      if (invalid.length > 0) return invalid.map((error) => coded(error, 'GRAPHQL_VALIDATION_FAILED'));
      if (!getOperationAST(document, payload.operationName)) {
        return [coded(new GraphQLError('Unable to identify the operation to run (name it with operationName)'), 'BAD_USER_INPUT')];
      }
      return { schema, document, operationName: payload.operationName, variableValues: payload.variables };
    },
    onNext: (_ctx, _id, _payload, _args, result) => {
      if (!result.errors) return undefined;
      return {
        ...result,
        errors: result.errors.map((error) =>
          // Without a path the error arose before any field ran: variables that do not fit their types.
          toPublicError((error.path || error.extensions.code ? error : coded(error, 'BAD_USER_INPUT')).toJSON(), error, logger),
        ),
      };
    },
    onError: (_ctx, _id, _payload, errors) => errors.map((error) => toPublicError(error.toJSON(), error, logger)),
  };
}

function coded(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}
