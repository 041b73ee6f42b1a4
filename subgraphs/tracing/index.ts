import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import type { TracingDatabase } from './db/database.js';
import { tracingMigrations } from './db/migrations/index.js';
import { Project, TracingProjectResolver } from './project/project.resolver.js';
import type { TracingServices } from './services.js';
import { TracingStore } from './store.js';

/** Family A: calls (traces), scores and feedback, for dashboards and the Weave SDKs. */
export const tracingSubgraph = defineSubgraph<TracingServices>({
  name: 'tracing',
  migrations: tracingMigrations,
  resolvers: [TracingProjectResolver],
  orphanedTypes: [Project],
  createServices: ({ store }) => ({ store: new TracingStore(store as Kysely<TracingDatabase>) }),
  references: () => ({ Project: passThroughReference }),
});
