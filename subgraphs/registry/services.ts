import type { PlatformEventStream } from '../../platform/events/index.js';
import type { ArtifactService } from './artifact/artifact.service.js';
import type { RegistryService } from './registry/registry.service.js';
import type { RunService } from './run/run.service.js';
import type { RegistryStore } from './store.js';

/** What the registry subgraph's resolvers are constructed with. */
export interface RegistryServices {
  store: RegistryStore;
  registries: RegistryService;
  artifacts: ArtifactService;
  runs: RunService;
  events: PlatformEventStream;
}
