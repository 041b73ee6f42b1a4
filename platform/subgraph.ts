import 'reflect-metadata';
import { parse, type GraphQLSchema } from 'graphql';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import type { OperationLimits } from './graphql/operation-limits.js';
import { buildSchema, createResolversMap, type NonEmptyArray } from 'type-graphql';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Principal } from './auth/principal.js';
import type { PlatformConfig } from './config.js';
import type { DatabaseConnection } from './db/connection.js';
import { migrateSchema, type Migrations } from './db/migrate.js';
import type { Logger } from './logger.js';
import type { GraphQLContext } from './graphql/context.js';
import { attachInputFieldPaths } from './graphql/input-field-paths.js';
import { eventIsValue } from './graphql/leaf-field-operation.js';
import { describingTypedInputs } from './graphql/typed-input.js';
import type { PlatformGraph } from './graphql/platform-graph.js';
import type { ModelLimiter } from './model-access/request-limiter.js';

/**
 * The one shape every subgraph has. A subgraph is: GraphQL types and resolver classes (type-graphql), its store
 * (Kysely queries + dated migrations in its own Postgres schema), its domain services, and optional background
 * workers. `defineSubgraph` turns that description into something the platform can print (SDL for composition),
 * start (migrate, build services, build the executable federated schema, start workers) and stop.
 */
export const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides", "@inaccessible", "@tag"])';

export interface SubgraphDependencies {
  db: DatabaseConnection;
  config: PlatformConfig;
  logger: Logger;
  /** The federated graph as a client, for reading other subgraphs' data on behalf of a caller (absent in tools). */
  graph?: PlatformGraph;
  /**
   * The process's one admission limiter for requests to models (platform/model-access), shared by every subgraph
   * that serves a model so no path escapes the per-key and per-project limits (absent in tools: a subgraph then
   * makes its own from the config).
   */
  modelLimiter?: ModelLimiter;
}

/** A long-running task owned by a subgraph (delivery worker, job consumer…); stopped on graceful shutdown. */
export interface BackgroundWorker {
  name: string;
  /**
   * Work done for the whole platform (consuming queues and event streams), not for this process's requests: in a
   * platform of several identical processes (a process per core) it runs in the first one only, so settings such as
   * training concurrency mean the same with one process or eight, and no event is read once per process.
   */
  onePerPlatform?: boolean;
  start(): Promise<void> | void;
  /** Stop taking new work and finish (or hand back) what is in flight. */
  stop(): Promise<void>;
}

/** What a subgraph that serves its own HTTP endpoints (e.g. a WebSocket for subscriptions) is given. */
export interface SubgraphHttpContext {
  /** Resolves an API key to its principal, or null when the key is unknown or revoked. */
  authenticate(apiKey: string): Promise<Principal | null>;
  /**
   * Calls `handler` when a user's principal changed (memberships, roles, a revoked key; null: anyone's may have),
   * after `authenticate` stopped answering from the old state: e.g. for open connections to re-authenticate.
   * Returns the unsubscribe function.
   */
  onPrincipalChanged(handler: (userId: string | null) => void): () => void;
  /** The limits of one GraphQL operation, for endpoints that execute operations themselves (graphql-ws). */
  operationLimits: OperationLimits;
}
export type HttpExtension = (app: FastifyInstance) => Promise<void> | void;

export type ReferenceResolver = (
  representation: Record<string, unknown>,
  context: GraphQLContext,
) => unknown | Promise<unknown>;

// Resolver classes are constructed with the subgraph's services (type-graphql's container hook).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ResolverClass<Services> = new (services: Services) => any;

/**
 * The event source of one Subscription field: graphql's `subscribe` step. type-graphql's `@Subscription` only
 * declares the field (its `subscribe` option cannot reach the resolver's services); the subgraph binds the
 * source here, with its services, like `references`.
 */
export type SubscriptionSource = (
  args: Record<string, unknown>,
  context: GraphQLContext,
) => AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>;

export interface SubgraphSpec<Services> {
  name: string;
  migrations: Migrations;
  resolvers: NonEmptyArray<ResolverClass<Services>>;
  /** Types not reachable from a resolver but part of the schema (interface members, entity stubs). */
  orphanedTypes?: Function[];
  /** `__resolveReference` per entity type name. */
  references?: (services: Services) => Record<string, ReferenceResolver>;
  /** Event sources of the subgraph's Subscription fields, by field name. */
  subscriptions?: (services: Services) => Record<string, SubscriptionSource>;
  /**
   * The context the subgraph's subscriptions execute with, from the caller's base context: for a subgraph whose
   * subscription sources read services from the context. Applied wherever this subgraph's subscriptions run (the
   * public graphql-ws endpoint, streaming REST routes, the internal endpoint of its own service), so the code that
   * routes subscriptions needs to know nothing of the subgraph's context keys.
   */
  subscriptionContext?(services: Services, base: GraphQLContext): GraphQLContext;
  createServices(dependencies: SubgraphDependencies & { store: Kysely<any> }): Services | Promise<Services>;
  /** `schema` is the subgraph's executable schema, for workers that consume its own subscriptions. */
  workers?(services: Services, dependencies: SubgraphDependencies & { schema: GraphQLSchema }): BackgroundWorker[];
  /**
   * Fastify plugins mounted on the HTTP server that serves this subgraph (the platform's main port in the
   * one-process topology; the subgraph service's port when it runs alone). Subscriptions need none: the composition
   * root serves them for the whole graph at `/graphql/ws` (server/http/graphql-ws-endpoint.ts).
   */
  httpExtensions?(subgraph: { schema: GraphQLSchema; services: Services }, http: SubgraphHttpContext): HttpExtension[];
  /** Releases what createServices opened (dedicated connections, HTTP agents), after the workers stopped. */
  onStop?(services: Services): Promise<void>;
  /** One-off start-up work after migrations (e.g. bootstrap data); runs in every process that starts it. */
  onStart?(services: Services, dependencies: SubgraphDependencies): Promise<void>;
}

export interface StartedSubgraph<Services = unknown> {
  name: string;
  schema: GraphQLSchema;
  services: Services;
  workers: BackgroundWorker[];
  /** The context one of its subscriptions executes with (the spec's `subscriptionContext`, else `base` itself). */
  subscriptionContext(base: GraphQLContext): GraphQLContext;
  httpExtensions(http: SubgraphHttpContext): HttpExtension[];
  /**
   * Stops its background workers (once, however often it is called). The platform does this before it stops the
   * gateway: workers act through the graph (a monitor's judge, a platform-run evaluation), and one that saw the graph
   * gone in the middle of its work would record that as the model's failure.
   */
  stopWorkers(): Promise<void>;
  /** Stops its workers (if not yet stopped), then releases what it opened. */
  stop(): Promise<void>;
}

export interface SubgraphStartOptions {
  /** Start background workers (default true). */
  workers?: boolean;
  /** A further process of a process-per-core platform: workers marked `onePerPlatform` run in the first only. */
  replica?: boolean;
}

export interface SubgraphModule<Services = unknown> {
  name: string;
  /** Its resolver classes (what contract tests inspect). */
  resolvers: readonly Function[];
  /** The subgraph's SDL with federation directives; needs no database. */
  printSdl(): Promise<string>;
  /** Migrates the subgraph's schema and runs its migrations, without starting it. */
  migrate(db: DatabaseConnection): Promise<string[]>;
  start(dependencies: SubgraphDependencies, options?: SubgraphStartOptions): Promise<StartedSubgraph<Services>>;
}

export function defineSubgraph<Services>(spec: SubgraphSpec<Services>): SubgraphModule<Services> {
  const build = async (services: Services | undefined): Promise<{ sdl: string; schema: GraphQLSchema }> => {
    const instances = new Map<Function, unknown>();
    // Typed-input arguments are declared as their input classes while the type schema is built and printed, and
    // reach resolvers unconverted afterwards (platform/graphql/typed-input.ts).
    const { sdl, resolvers } = await describingTypedInputs(async () => {
      const typeSchema = await buildSchema({
        resolvers: spec.resolvers,
        orphanedTypes: spec.orphanedTypes,
        skipCheck: true,
        validate: false,
        // type-graphql insists on a PubSub once a @Subscription exists; Trellis binds every subscription to an
        // explicit `subscribe` function (or the `subscriptions` option), so this one must never be used.
        pubSub: UNUSED_PUB_SUB,
        container: {
          get: (someClass: ResolverClass<Services>) => {
            let instance = instances.get(someClass);
            if (!instance) {
              instance = new someClass(services as Services);
              instances.set(someClass, instance);
            }
            return instance;
          },
        },
      });
      return {
        sdl: `${FEDERATION_LINK}\n\n${withoutEmptyRootTypes(printSchemaWithDirectives(typeSchema))}`,
        resolvers: createResolversMap(typeSchema) as Record<string, Record<string, unknown>>,
      };
    });
    if (services !== undefined && spec.references) {
      for (const [typeName, resolveReference] of Object.entries(spec.references(services))) {
        resolvers[typeName] = { ...(resolvers[typeName] ?? {}), __resolveReference: resolveReference };
      }
    }
    if (services !== undefined && spec.subscriptions) {
      const subscriptionFields = (resolvers.Subscription ??= {}) as Record<string, Record<string, unknown>>;
      for (const [field, source] of Object.entries(spec.subscriptions(services))) {
        subscriptionFields[field] = {
          ...(subscriptionFields[field] ?? {}),
          subscribe: (_root: unknown, args: Record<string, unknown>, context: GraphQLContext) => source(args, context),
          // Each event is the field's value (type-graphql's own resolve expects its pub/sub payload shape).
          resolve: eventIsValue,
        };
      }
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const schema = buildSubgraphSchema({ typeDefs: parse(sdl), resolvers: resolvers as any });
    // Bad-input errors learn which argument they are about (extensions.field), in every topology and transport.
    attachInputFieldPaths(schema);
    return { sdl, schema };
  };

  return {
    name: spec.name,
    resolvers: spec.resolvers,
    async printSdl() {
      return (await build(undefined)).sdl;
    },
    migrate(db) {
      return migrateSchema(db.root, spec.name, spec.migrations);
    },
    async start(dependencies, options = {}) {
      await this.migrate(dependencies.db);
      const store = dependencies.db.forSchema<any>(spec.name);
      const services = await spec.createServices({ ...dependencies, store });
      await spec.onStart?.(services, dependencies);
      const { schema } = await build(services);
      const workers = options.workers === false
        ? []
        : (spec.workers?.(services, { ...dependencies, schema }) ?? []).filter((worker) => !(options.replica && worker.onePerPlatform));
      for (const worker of workers) await worker.start();
      let workersStopped: Promise<void> | undefined;
      const stopWorkers = () => (workersStopped ??= Promise.all(workers.map((worker) => worker.stop())).then(() => undefined));
      return {
        name: spec.name,
        schema,
        services,
        workers,
        subscriptionContext: (base) => spec.subscriptionContext?.(services, base) ?? base,
        httpExtensions: (http) => spec.httpExtensions?.({ schema, services }, http) ?? [],
        stopWorkers,
        async stop() {
          await stopWorkers();
          await spec.onStop?.(services);
        },
      };
    },
  };
}

const UNUSED_PUB_SUB = {
  publish(): never {
    throw new Error('type-graphql PubSub is not used: bind every @Subscription with `subscribe` or `subscriptions`');
  },
  subscribe(): never {
    throw new Error('type-graphql PubSub is not used: bind every @Subscription with `subscribe` or `subscriptions`');
  },
};

/**
 * A subgraph that only adds fields to other subgraphs' entities has no root fields of its own; type-graphql still
 * prints an empty `type Query`, which is not valid SDL. Federation adds `_entities`/`_service` itself.
 */
function withoutEmptyRootTypes(sdl: string): string {
  let result = sdl;
  for (const root of ['Query', 'Mutation', 'Subscription']) {
    const empty = new RegExp(`^type ${root}\\s*$`, 'm');
    if (!empty.test(result)) continue;
    result = result.replace(empty, '').replace(new RegExp(`^\\s*${root.toLowerCase()}: ${root}\\s*$`, 'm'), '');
  }
  return result.replace(/^schema \{\s*\}\s*$/m, '').replace(/\n{3,}/g, '\n\n').trim() + '\n';
}
