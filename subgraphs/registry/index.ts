import type { Kysely } from 'kysely';
import { migrateEvents, PlatformEventStream } from '../../platform/events/index.js';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import { ArtifactFileResolver, ArtifactVersionFileResolver } from './artifact/artifact-file.resolver.js';
import { ArtifactResolver } from './artifact/artifact.resolver.js';
import { ArtifactService } from './artifact/artifact.service.js';
import type { RegistryDatabase } from './db/database.js';
import { registryMigrations } from './db/migrations/index.js';
import { Project, RegistryProjectResolver } from './project/project.resolver.js';
import { RegistryResolver } from './registry/registry.resolver.js';
import { RegistryService } from './registry/registry.service.js';
import { RunResolver } from './run/run.resolver.js';
import { RunService } from './run/run.service.js';
import type { RegistryServices } from './services.js';
import { TrainingRunRecorder } from './training/training-run-recorder.js';
import { RegistryStore } from './store.js';

/** Registries, artifact collections and versions, runs and run metrics: the things automations watch. */
export const registrySubgraph = defineSubgraph<RegistryServices>({
  name: 'registry',
  migrations: registryMigrations,
  resolvers: [RegistryProjectResolver, RegistryResolver, ArtifactResolver, ArtifactFileResolver, ArtifactVersionFileResolver, RunResolver],
  orphanedTypes: [Project],
  createServices: async ({ store, db, logger }) => {
    // Every change here publishes a platform event in its own transaction: the outbox must exist.
    await migrateEvents(db.root);
    const registryStore = new RegistryStore(store as Kysely<RegistryDatabase>);
    return {
      store: registryStore,
      registries: new RegistryService(registryStore),
      artifacts: new ArtifactService(registryStore),
      runs: new RunService(registryStore),
      events: new PlatformEventStream(db.root, String(db.pool.options.connectionString), logger),
    };
  },
  // Family C's checkpoints and training runs arrive as platform events and become artifact versions and runs here.
  workers: ({ store, events }, { logger }) => [new TrainingRunRecorder(store.db, events, logger.child({ worker: 'training-runs' }))],
  onStop: async ({ events }) => {
    await events.close();
  },
  references: () => ({ Project: passThroughReference }),
});
