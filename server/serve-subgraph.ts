import 'reflect-metadata';
import { ApolloServer } from '@apollo/server';
import fastifyApollo from '@as-integrations/fastify';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { subgraphByName } from '../subgraphs/index.js';
import { Authenticator } from '../subgraphs/identity/authenticator.js';
import type { IdentityDatabase } from '../subgraphs/identity/db/database.js';
import type { IdentityServices } from '../subgraphs/identity/services.js';
import { ConfigError, loadConfig } from '../platform/config.js';
import { warnIfConnectionsCanRunOut } from '../platform/db/connection-budget.js';
import { connectDatabase } from '../platform/db/connection.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { loadOrCreateSecretFile } from '../platform/internal-secret.js';
import { createLogger } from '../platform/logger.js';
import { gracefulClose } from '../platform/http/graceful-close.js';
import { requestTimeoutOptions } from '../platform/http/request-timeouts.js';
import { serveSubscriptions } from '../platform/graphql/subscriptions-over-websocket.js';
import { RemoteGraph, UnavailableGraph } from '../platform/graphql/platform-graph.js';
import { createModelLimiter } from '../platform/model-access/limits.js';
import { deferredChildLogger } from '../platform/http/deferred-request-logger.js';
import { markOutages } from '../platform/graphql/public-errors.js';
import { registerMetrics } from '../platform/http/metrics.js';
import { databaseCheck, registerReadiness } from '../platform/http/readiness.js';
import { internalCallerVerifier } from '../platform/http/internal-secret-mismatch.js';
import { describeVariables, isDistributedService, missingVariables, SERVICE_VARIABLES } from './service-variables.js';
import { logStartupFailure } from './startup-failure.js';

/**
 * Distributed topology: runs ONE subgraph as its own HTTP service (`node dist/server/serve-subgraph.js tracing`).
 * It trusts only callers that present the gateway's signed identity header.
 */
const name = process.argv[2];
if (!name) {
  process.stderr.write('usage: serve-subgraph <identity|registry|tracing|inference|training|automations>\n');
  process.exit(2);
}
const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    // The configuration says how to log; without one, log at the default level.
    logStartupFailure(createLogger({ level: 'info', name: `trellis-${name}` }), error);
    process.exit(1);
  }
})();
const logger = createLogger({ level: config.logLevel, name: `trellis-${name}` });
// What this service needs is declared in server/service-variables.ts (the deployment files are tested against it).
const variables = isDistributedService(name) ? SERVICE_VARIABLES[name] : undefined;
const missing = missingVariables(variables?.atStart ?? [], process.env);
if (missing.length > 0) {
  logStartupFailure(logger, new ConfigError(`the ${name} service needs ${describeVariables(missing)}`));
  process.exit(1);
}
const unset = missingVariables(variables?.forDeployment ?? [], process.env);
if (unset.length > 0) logger.warn({ unset: unset.map((variable) => variable.name) }, `not set, as a deployment must: ${describeVariables(unset)}`);
if (!config.databaseUrl) throw new ConfigError('a subgraph service needs DATABASE_URL (the shared PostgreSQL)');
const secret = await loadOrCreateSecretFile(config.dataDir, 'internal-secret', config.internalSecret);

const module = subgraphByName(name);
const db = connectDatabase(config.databaseUrl, { max: config.databasePoolSize, applicationName: `trellis-${name}` });
// Data of other subgraphs is read through the gateway process, on behalf of the caller.
const graph = config.gatewayUrl ? new RemoteGraph(config.gatewayUrl, secret) : new UnavailableGraph();
const subgraph = await module.start({ db, config, graph, logger, modelLimiter: createModelLimiter(config) }).catch((error: unknown) => {
  // An unreachable database, a refused password: one line saying so (a bug keeps its stack).
  logStartupFailure(logger, error);
  process.exit(1);
});

const app = Fastify({
  loggerInstance: logger as FastifyBaseLogger,
  bodyLimit: config.bodyLimitBytes,
  logController: new LogController({ disableRequestLogging: true }),
  childLoggerFactory: deferredChildLogger,
  ...requestTimeoutOptions(config),
});
// Before the routes, so its request-duration hook sees them all. Workers of this subgraph count into it too.
registerMetrics(app, { service: name });
const apollo = new ApolloServer<GraphQLContext>({
  schema: subgraph.schema,
  introspection: true,
  includeStacktraceInErrorResponses: false,
  stopOnTerminationSignals: false, // shutdown order is ours (below)
  formatError: markOutages, // its database unreachable: UNAVAILABLE, which the gateway passes on (not a bug)
});
await apollo.start();
// Endpoints a subgraph serves itself (its httpExtensions, if any) authenticate API keys directly.
const authenticator = (subgraph.services as Partial<IdentityServices>).authenticator ?? new Authenticator(db.forSchema<IdentityDatabase>('identity'));
// Principal changes committed by the identity service reach this cache at once (LISTEN), not after its TTL.
await authenticator.followChanges(config.databaseUrl, logger);
const httpContext = {
  authenticate: (key: string) => authenticator.authenticate(key),
  onPrincipalChanged: (handler: (userId: string | null) => void) => authenticator.onPrincipalChanged(handler),
  operationLimits: config.graphqlLimits,
};
for (const extension of subgraph.httpExtensions(httpContext)) {
  await extension(app);
}
app.get('/healthz', async () => ({ status: 'ok', subgraph: name })); // liveness: the process is up
registerReadiness(app, [databaseCheck(db)]);
// A gateway signing with another TRELLIS_INTERNAL_SECRET is answered (and logged) as that, not as a bad key.
const verifyCaller = internalCallerVerifier(secret, logger, name);
await app.register(fastifyApollo(apollo), {
  path: '/graphql',
  context: async (request): Promise<GraphQLContext> => ({
    principal: verifyCaller(request.headers),
    requestId: String(request.headers['x-request-id'] ?? request.id),
    logger: request.log,
  }),
});
// Subscription fields are served over the internal graphql-ws endpoint only: the gateway process runs them for its
// public /graphql/ws and for streaming REST routes (one public endpoint for the whole graph, whatever the topology).
const closeSubscriptions = subgraph.schema.getSubscriptionType()
  ? serveSubscriptions(app.server, subgraph.schema, secret, logger, subgraph.subscriptionContext)
  : undefined;
const closeHttp = gracefulClose(app, { timeoutMs: config.shutdownTimeoutMs, delayMs: config.shutdownDelayMs });
await app.listen({ host: config.host, port: config.port });
// Off the start-up path: a warning when a burst could exhaust PostgreSQL's max_connections.
void warnIfConnectionsCanRunOut(db.root, logger, { processes: 1 });
logger.info({ subgraph: name, port: config.port }, 'subgraph service listening');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    await closeSubscriptions?.();
    await closeHttp(); // stops accepting and drains in-flight requests (at most TRELLIS_SHUTDOWN_TIMEOUT_MS)
    await apollo.stop();
    await subgraph.stop();
    await authenticator.close();
    await db.close();
    process.exit(0);
  });
}
