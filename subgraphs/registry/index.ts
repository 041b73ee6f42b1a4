import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import type { RegistryDatabase } from './db/database.js';
import { registryMigrations } from './db/migrations/index.js';
import { Project, RegistryProjectResolver } from './project/project.resolver.js';
import type { RegistryServices } from './services.js';
import { RegistryStore } from './store.js';

/** Registries, artifact collections and versions, runs and run metrics: the things automations watch. */
export const registrySubgraph = defineSubgraph<RegistryServices>({
  name: 'registry',
  migrations: registryMigrations,
  resolvers: [RegistryProjectResolver],
  orphanedTypes: [Project],
  createServices: ({ store }) => ({ store: new RegistryStore(store as Kysely<RegistryDatabase>) }),
  references: () => ({ Project: passThroughReference }),
});
