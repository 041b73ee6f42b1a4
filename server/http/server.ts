import { randomUUID } from 'node:crypto';
import type { ApolloServer } from '@apollo/server';
import fastifyApollo from '@as-integrations/fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { credentialsFromAuthorization } from '../../platform/auth/credentials.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { PlatformConfig } from '../../platform/config.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import type { Logger } from '../../platform/logger.js';
import { registerRoutes } from '../../rest-adapter/register-routes.js';
import type { RestRoute } from '../../rest-adapter/route.js';
import type { SubscriptionExecutor } from '../../rest-adapter/sse.js';
import type { LocalExecutor } from '../../rest-adapter/execute.js';
import { ajv } from '../../platform/validation.js';
import { admitBodiesAfterHeaders } from '../../platform/http/body-admission.js';
import { installErrorHandling } from './error-handler.js';
import { registerGraphqlExplorer } from './graphql-explorer.js';
import { registerDashboard } from './dashboard.js';
import { registerWeaveLinks } from './weave-links.js';
import { dashboardOutDir } from '../dashboard/paths.js';
import { deferredChildLogger } from '../../platform/http/deferred-request-logger.js';
import { installJsonBodyParser } from '../../platform/http/json-body-parser.js';
import { authenticateGraphQLRequests } from './graphql-authentication.js';
import { registerMetrics, type MetricsOptions } from '../../platform/http/metrics.js';
import { registerReadiness, type ReadinessCheck } from '../../platform/http/readiness.js';
import { requestTimeoutOptions } from '../../platform/http/request-timeouts.js';
import type { TlsCredentials } from '../../platform/http/tls.js';

export interface HttpServerOptions {
  config: PlatformConfig;
  logger: Logger;
  /** Where `/metrics` gathers from (default: this process). */
  metrics?: MetricsOptions;
  /** Resolves an API key to its principal, or null when the key is unknown or revoked. */
  authenticate(apiKey: string): Promise<Principal | null>;
  /** What `/readyz` checks (platform/http/readiness.ts): the database, and the gateway's subgraph services. */
  readiness: ReadinessCheck[];
  routes: RestRoute[];
  /** Executes subscriptions of subgraphs running in this process, for streaming (SSE) routes. */
  subscribe?: SubscriptionExecutor;
  /** Executes operations on subgraphs running in this process, for routes that name their subgraph. */
  executeLocal?: LocalExecutor;
  /**
   * Distributed topology: the secret subgraph services sign their callers' identity with when they call the graph
   * (platform/graphql/platform-graph.ts). Without it, `/graphql` accepts API keys only.
   */
  internalSecret?: string;
  /** The built dashboard (default: dist/dashboard of the repository), served under /ui/. */
  dashboardDir?: string;
  /** Serve HTTPS with these (platform/http/tls.ts) instead of plain HTTP. */
  tls?: TlsCredentials;
  /** Extra plugins to register once the core is set up (e.g. streaming routes of a family). */
  extensions?: ((app: FastifyInstance) => Promise<void> | void)[];
}

export interface HttpServer {
  app: FastifyInstance;
  /** Attach the gateway; separate so the gateway's drain plugin can bind to this server. */
  mountGateway(apollo: ApolloServer<GraphQLContext>): Promise<void>;
}

/**
 * The platform's one port: `/graphql` (the gateway), the REST adapter's family mounts, `/openapi.json` + `/docs`,
 * `/healthz` (liveness), `/readyz` (readiness) and `/metrics`. `/graphql/ws` is mounted once the gateway exists (graphql-ws-endpoint.ts, from platform.ts).
 */
export async function createHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const timeouts = requestTimeoutOptions(options.config);
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.config.bodyLimitBytes,
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    childLoggerFactory: deferredChildLogger,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...timeouts,
    // Fastify hands `http` (the header/request deadlines) to http.createServer only; an HTTPS server takes them with
    // its key and certificate. Typed as the HTTP instance: routes and hooks are the same for both.
    ...(options.tls ? { https: { ...timeouts.http, cert: options.tls.cert, key: options.tls.key } } : {}),
    ajv: { customOptions: { allErrors: true, coerceTypes: false, useDefaults: true, strict: false } },
  });
  // Validation uses the adapter's Ajv, so error items come out in the same pydantic shape everywhere.
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  // Per-request hooks are callback-style and synchronous: an async hook costs a promise and a hop through
  // Fastify's hook runner on every request. The header is set before the handler runs, so every response of
  // the request (errors included: Fastify keeps reply headers) carries it.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  const logRequests = options.logger.isLevelEnabled('info');
  app.addHook('onResponse', (request, reply, done) => {
    if (logRequests) {
      request.log.info(
        { method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    }
    done();
  });
  app.decorateRequest('principal', null);
  admitBodiesAfterHeaders(app, { anonymousBodyLimitBytes: options.config.anonymousBodyLimitBytes });
  // JSON APIs only: a text/plain body must be refused (415), not handed to validation as a string.
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app);
  installJsonBodyParser(app, { maxDepth: options.config.jsonMaxDepth });
  registerMetrics(app, options.metrics);
  registerGraphqlExplorer(app); // before the gateway: it serves the page on Apollo's GET /graphql route
  registerDashboard(app, { dir: options.dashboardDir ?? dashboardOutDir() }); // `/` and `/ui/...`
  registerWeaveLinks(app); // the links the Weave SDKs print, onto dashboard pages

  await app.register(swagger, {
    openapi: {
      info: { title: 'Trellis REST API', version: '0.1.0', description: 'REST paths of the four API families, served by mapping onto the federated GraphQL graph.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, basic: { type: 'http', scheme: 'basic' } } },
      security: [{ bearer: [] }, { basic: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Liveness only: a process whose database is down is not restarted for it (it recovers); /readyz says it.
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  registerReadiness(app, options.readiness);

  const principalOf = async (request: FastifyRequest): Promise<Principal | null | undefined> => {
    const credentials = credentialsFromAuthorization(request.headers.authorization);
    if (credentials.kind === 'none') return undefined;
    return credentials.kind === 'key' ? options.authenticate(credentials.key) : null;
  };

  let apolloServer: ApolloServer<GraphQLContext> | undefined;
  registerRoutes(app, options.routes, {
    get apollo() {
      if (!apolloServer) throw new Error('gateway not mounted');
      return apolloServer;
    },
    principalOf,
    subscribe: options.subscribe,
    executeLocal: options.executeLocal,
  });
  for (const extension of options.extensions ?? []) await extension(app);

  return {
    app,
    async mountGateway(apollo) {
      apolloServer = apollo;
      // In its own context, so the authentication hook applies to /graphql only.
      await app.register(async (graphql) => {
        graphql.addHook('onRequest', authenticateGraphQLRequests({ principalOf, internalSecret: options.internalSecret }));
        await graphql.register(fastifyApollo(apollo), {
          path: '/graphql',
          // The caller was authenticated on the request headers, before the body was read.
          context: async (request): Promise<GraphQLContext> => ({ principal: request.principal, requestId: String(request.id), logger: request.log }),
        });
      });
    },
  };
}

