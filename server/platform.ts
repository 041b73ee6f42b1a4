import 'reflect-metadata';
import path from 'node:path';
import type { ApolloServer } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { composeSupergraph, printSubgraphs } from '../gateway/supergraph.js';
import { createGateway, type Topology } from '../gateway/gateway.js';
import { rejectUnstorableInput } from '../gateway/plugins/storable-input.js';
import { ALL_ROUTES } from '../rest-adapter/routes/index.js';
import type { RestRoute } from '../rest-adapter/route.js';
import { SUBGRAPHS } from '../subgraphs/index.js';
import { Authenticator } from '../subgraphs/identity/authenticator.js';
import type { IdentityServices } from '../subgraphs/identity/services.js';
import type { IdentityDatabase } from '../subgraphs/identity/db/database.js';
import { ConfigError, type PlatformConfig } from '../platform/config.js';
import { CompiledOperations } from '../platform/graphql/compiled-operations.js';
import { RemoteSubscriptions } from '../platform/graphql/subscriptions-over-websocket.js';
import { InProcessGraph } from '../platform/graphql/platform-graph.js';
import { createModelLimiter } from '../platform/model-access/limits.js';
import type { ModelLimiter } from '../platform/model-access/request-limiter.js';
import type { MetricsOptions } from '../platform/http/metrics.js';
import { connectDatabase, type DatabaseConnection } from '../platform/db/connection.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../platform/db/embedded-postgres.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { gracefulClose } from '../platform/http/graceful-close.js';
import { databaseCheck } from '../platform/http/readiness.js';
import { SubgraphProbes } from '../platform/http/internal-secret-mismatch.js';
import { createHttpServer } from './http/server.js';
import { graphqlWsEndpoint } from './http/graphql-ws-endpoint.js';
import { SubgraphSubscriptions } from './subgraph-subscriptions.js';
import { loadOrCreateSecretFile } from '../platform/internal-secret.js';
import { loadTlsCredentials } from '../platform/http/tls.js';
import { warnIfConnectionsCanRunOut } from '../platform/db/connection-budget.js';
import type { Logger } from '../platform/logger.js';
import type { StartedSubgraph, SubgraphModule } from '../platform/subgraph.js';

export interface StartPlatformOptions {
  config: PlatformConfig;
  logger: Logger;
  /** Start background workers (delivery, training). Default true. */
  workers?: boolean;
  /**
   * A further process of a process-per-core platform (server/cluster): background work done for the whole platform
   * (queues, event consumers) runs in the first process only.
   */
  replica?: boolean;
  /** Admission under the model limits (default: counted in this process). */
  modelLimiter?: ModelLimiter;
  /** Where `/metrics` gathers from (default: this process). */
  metrics?: MetricsOptions;
  /** Subgraphs to run (default: all). */
  subgraphs?: SubgraphModule<any>[];
  routes?: RestRoute[];
}

export interface RunningPlatform {
  url: string;
  app: FastifyInstance;
  apollo: ApolloServer<GraphQLContext>;
  db: DatabaseConnection;
  subgraphs: Map<string, StartedSubgraph<any>>;
  databaseUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the platform in this process: PostgreSQL (embedded unless DATABASE_URL is set), every subgraph that is
 * not configured as a remote service, the gateway over all of them, the REST adapter and the HTTP server.
 */
export async function startPlatform(options: StartPlatformOptions): Promise<RunningPlatform> {
  const { config, logger } = options;
  const cleanups: { step: string; run: () => Promise<void> }[] = [];
  const runCleanups = async () => {
    for (const { step, run } of cleanups.reverse()) {
      logger.debug({ step }, 'shutdown step');
      await run().catch((error) => logger.error({ err: error, step }, 'shutdown step failed'));
    }
  };
  try {
    let embedded: RunningPostgres | undefined;
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres({
        dataDir: path.join(config.dataDir, 'postgres'),
        settings: config.postgresSettings,
        onLog: (line) => logger.debug({ postgres: line }, 'postgres'),
      });
      cleanups.push({ step: 'embedded PostgreSQL', run: () => embedded!.stop() });
      databaseUrl = embedded.url;
      logger.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
    }
    const db = connectDatabase(databaseUrl, { max: config.databasePoolSize, applicationName: 'trellis-gateway' });
    cleanups.push({ step: 'database pool', run: () => db.close() });

    const modules = options.subgraphs ?? SUBGRAPHS;
    const remoteNames = Object.keys(config.subgraphUrls);
    for (const name of remoteNames) {
      if (!modules.some((module) => module.name === name)) throw new ConfigError(`TRELLIS_SUBGRAPH_URLS names unknown subgraph "${name}"`);
    }
    const internalSecret = remoteNames.length
      ? await loadOrCreateSecretFile(config.dataDir, 'internal-secret', config.internalSecret)
      : '';

    // Subscriptions of subgraphs running as services are reached over graphql-ws (/graphql/ws, streaming REST routes).
    const remoteSubscriptions = remoteNames.length ? new RemoteSubscriptions(internalSecret) : undefined;
    if (remoteSubscriptions) cleanups.push({ step: 'remote subscriptions', run: () => remoteSubscriptions.close() });

    // Subgraphs here read other subgraphs' data through this process's gateway (bound once it exists).
    const graph = new InProcessGraph(logger);
    // Every subgraph here that serves a model admits its requests through this one limiter.
    const modelLimiter = options.modelLimiter ?? createModelLimiter(config);
    const started = new Map<string, StartedSubgraph<any>>();
    for (const module of modules.filter((candidate) => !remoteNames.includes(candidate.name))) {
      const dependencies = { db, config, graph, modelLimiter, logger: logger.child({ subgraph: module.name }) };
      const subgraph = await module.start(dependencies, { workers: options.workers, replica: options.replica });
      started.set(module.name, subgraph);
      cleanups.push({ step: `subgraph ${module.name}`, run: () => subgraph.stop() });
    }

    // Authentication is identity's code; with identity remote, it runs here against identity's schema.
    const identity = started.get('identity')?.services as IdentityServices | undefined;
    const authenticator = identity?.authenticator ?? new Authenticator(db.forSchema<IdentityDatabase>('identity'));
    if (!identity) {
      // Identity's own process tells this one about changed principals (memberships, revoked keys) at commit.
      await authenticator.followChanges(databaseUrl, logger);
      cleanups.push({ step: 'principal change listener', run: () => authenticator.close() });
    }
    const httpContext = {
      authenticate: (key: string) => authenticator.authenticate(key),
      onPrincipalChanged: (handler: (userId: string | null) => void) => authenticator.onPrincipalChanged(handler),
      operationLimits: config.graphqlLimits,
    };

    const printed = await printSubgraphs(modules);
    const supergraphSdl = composeSupergraph(printed, config.subgraphUrls);
    const topology: Topology = remoteNames.length
      ? { kind: 'distributed', urls: config.subgraphUrls, internalSecret }
      : { kind: 'in-process', schemas: {} };
    const schemas = Object.fromEntries([...started].map(([name, subgraph]) => [name, subgraph.schema]));
    // The REST routes' own operations, executed on subgraphs in this process (no gateway planning), compiled once.
    const operations = new CompiledOperations();
    // Every subscription (streaming REST routes, /graphql/ws) runs on the subgraph that owns its root field.
    const subscriptions = new SubgraphSubscriptions({
      started,
      urls: config.subgraphUrls,
      remote: remoteSubscriptions,
      operations,
      supergraphSdl,
      printed,
    });
    // The gateway's subgraph services: reachable and accepting its internal secret (its /readyz; a mismatch is logged).
    const probes = remoteNames.length ? new SubgraphProbes({ urls: config.subgraphUrls, internalSecret, logger }) : undefined;
    const http = await createHttpServer({
      config,
      logger,
      tls: await loadTlsCredentials(config),
      // The gateway of the distributed topology, or the whole platform in this process.
      metrics: { service: remoteNames.length ? 'gateway' : 'platform', ...options.metrics },
      // Subgraph services call this gateway on behalf of their callers with the signed identity header.
      internalSecret: internalSecret || undefined,
      authenticate: (key) => authenticator.authenticate(key),
      readiness: [databaseCheck(db), ...(probes?.checks() ?? [])],
      routes: options.routes ?? ALL_ROUTES,
      extensions: [...started.values()].flatMap((subgraph) => subgraph.httpExtensions(httpContext)),
      // Streaming routes run a subgraph's subscription in this process, or on its service.
      subscribe: (name, document, variables, contextValue) => subscriptions.subscribe(name, document, variables, contextValue),
      executeLocal: (name, document, variables, contextValue) => {
        const schema = started.get(name)?.schema;
        if (!schema) return undefined;
        return operations.execute(schema, document, variables, contextValue);
      },
    });
    let apiSchema: GraphQLSchema | undefined;
    const apollo = await createGateway({
      supergraphSdl,
      topology: topology.kind === 'in-process' ? { kind: 'in-process', schemas } : { ...topology, localSchemas: schemas },
      logger,
      limits: config.graphqlLimits,
      plugins: [rejectUnstorableInput(config.jsonMaxDepth)],
      onApiSchema: (schema) => (apiSchema = schema),
    });
    graph.bind(apollo);
    await http.mountGateway(apollo);
    if (!apiSchema) throw new Error('the gateway started without an API schema');
    // One public graphql-ws endpoint for the whole graph, whichever process runs each subgraph.
    await graphqlWsEndpoint({ apollo, apiSchema, subscriptions, http: httpContext })(http.app);
    const closeHttp = gracefulClose(http.app, { timeoutMs: config.shutdownTimeoutMs, delayMs: config.shutdownDelayMs });
    await http.app.listen({ host: config.host, port: config.port });
    // Off the start-up path: a warning when a burst could exhaust PostgreSQL's max_connections.
    void warnIfConnectionsCanRunOut(db.root, logger, { processes: config.processes });
    const address = http.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `${config.tls ? 'https' : 'http'}://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;

    // Shutdown order: stop accepting and drain HTTP (in-flight requests, at most TRELLIS_SHUTDOWN_TIMEOUT_MS; see
    // http/graceful-close.ts. Apollo's own drain plugin is not used because it closes the Fastify server a second
    // time, which never resolves), then the background workers (they act through the graph), the gateway, the
    // subgraphs, the pool, and PostgreSQL last.
    if (probes) {
      probes.start();
      cleanups.push({ step: 'subgraph probes', run: async () => probes.stop() });
    }
    cleanups.push({ step: 'gateway', run: () => apollo.stop() });
    // Workers stop while the gateway still answers: they act through the graph (StartedSubgraph.stopWorkers).
    cleanups.push({ step: 'background workers', run: () => Promise.all([...started.values()].map((subgraph) => subgraph.stopWorkers())).then(() => undefined) });
    cleanups.push({ step: 'HTTP server', run: closeHttp });
    let closing: Promise<void> | undefined;
    return {
      url,
      app: http.app,
      apollo,
      db,
      subgraphs: started,
      databaseUrl,
      close: () => (closing ??= runCleanups()),
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}
