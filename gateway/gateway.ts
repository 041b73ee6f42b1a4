import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { limitedParseOptions, operationLimitRules, type OperationLimits } from '../platform/graphql/operation-limits.js';
import type { Logger } from '../platform/logger.js';
import { InProcessDataSource } from './in-process-data-source.js';
import { maskUnexpectedErrors } from './plugins/mask-errors.js';
import { rejectUnrunnableOperations } from './plugins/reject-unrunnable-operations.js';
import { SignedRemoteDataSource } from './signed-data-source.js';
import { unavailableStatus } from './plugins/unavailable-status.js';

/**
 * The Apollo gateway over the family subgraphs. Two topologies from the same code: every subgraph in this
 * process (`local` schemas), or each subgraph its own service reached by URL (`remote`).
 */
export type Topology =
  | { kind: 'in-process'; schemas: Record<string, GraphQLSchema> }
  | {
      kind: 'distributed';
      urls: Record<string, string>;
      internalSecret: string;
      /** Subgraphs without a URL still run in this process. */
      localSchemas?: Record<string, GraphQLSchema>;
    };

export interface GatewayOptions {
  supergraphSdl: string;
  topology: Topology;
  logger: Logger;
  /** Size, depth, cost, alias and introspection limits of one operation (the same on /graphql/ws). */
  limits: OperationLimits;
  plugins?: ApolloServerPlugin<GraphQLContext>[];
  /**
   * Called with the API schema the gateway serves (the public graph, no join directives) once it is loaded: for
   * endpoints that validate operations against the same graph as /graphql (the graphql-ws endpoint).
   */
  onApiSchema?: (apiSchema: GraphQLSchema) => void;
}

export async function createGateway(options: GatewayOptions): Promise<ApolloServer<GraphQLContext>> {
  const { topology } = options;
  // @apollo/gateway otherwise starts anonymous usage telemetry: it probes cloud metadata addresses
  // (169.254.169.254, metadata.google.internal…) and exports metrics to Apollo. A self-hosted platform must
  // not reach out on its own; operators can still opt in by setting APOLLO_TELEMETRY_DISABLED=false.
  process.env.APOLLO_TELEMETRY_DISABLED ??= 'true';
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    logger: options.logger,
    buildService: ({ name, url }) => {
      if (topology.kind === 'in-process') {
        const schema = topology.schemas[name];
        if (!schema) throw new Error(`subgraph ${name} is not running in this process`);
        return new InProcessDataSource(schema);
      }
      const local = topology.localSchemas?.[name];
      if (local && !topology.urls[name]) return new InProcessDataSource(local);
      const target = topology.urls[name] ?? url;
      if (!target) throw new Error(`no URL configured for subgraph ${name} (TRELLIS_SUBGRAPH_URLS)`);
      return new SignedRemoteDataSource(target, topology.internalSecret, options.logger);
    },
  });
  const onApiSchema = options.onApiSchema;
  if (onApiSchema) gateway.onSchemaLoadOrUpdate(({ apiSchema }) => onApiSchema(apiSchema));
  const server = new ApolloServer<GraphQLContext>({
    gateway,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // The platform owns shutdown order (server/main.ts); Apollo's own SIGTERM handler would race it.
    stopOnTerminationSignals: false,
    parseOptions: limitedParseOptions(options.limits),
    validationRules: operationLimitRules(options.limits),
    formatError: maskUnexpectedErrors(options.logger),
    // Apollo's landing page loads its UI from a CDN (blank offline); browsers get the platform's explorer instead.
    plugins: [ApolloServerPluginLandingPageDisabled(), rejectUnrunnableOperations(), unavailableStatus(), ...(options.plugins ?? [])],
  });
  await server.start();
  return server;
}

/** The GraphQL error a context function throws for a bad key: Apollo answers it with HTTP 401. */
export function invalidApiKeyError(): GraphQLError {
  return new GraphQLError('Invalid or revoked API key', {
    extensions: { code: 'UNAUTHENTICATED', status: 401, http: { status: 401 } },
  });
}
