/**
 * The platform events the registry writes (in the same transaction as the change). Automations watch them;
 * `${event_type}` renders the type as is.
 */
export const REGISTRY_EVENT_TYPES = [
  'CREATE_ARTIFACT',
  'LINK_ARTIFACT',
  'ADD_ARTIFACT_ALIAS',
  'ADD_ARTIFACT_TAG',
  'RUN_METRIC',
  'RUN_STATE',
] as const;
export type RegistryEventType = (typeof REGISTRY_EVENT_TYPES)[number];

/** How an artifact version appears in event payloads (and in `${artifact_version}`). */
export interface ArtifactVersionPayload {
  id: string;
  type: string;
  /** "<collection>:v<N>" within the collection of the event. */
  name: string;
  collection: string;
  version: string;
  entity: string;
  project: string | null;
  registry: string | null;
  digest: string;
  aliases: string[];
  tags: string[];
  metadata: Record<string, unknown>;
  files: { path: string; digest: string; size: number }[];
  createdBy: string;
  createdAt: string;
}

export interface RunPayload {
  id: string;
  name: string;
  author: string;
  state: string;
}

export interface ArtifactEventPayload {
  artifactVersion: ArtifactVersionPayload;
  /** "<entity>/<project or registry>/<collection>:v<N>" */
  artifactVersionString: string;
  collection: string;
  alias?: string;
  tag?: string;
}

export interface RunMetricEventPayload {
  run: RunPayload;
  metric: { name: string; value: number; step: number };
}

export interface RunStateEventPayload {
  run: RunPayload;
  state: string;
  previousState: string | null;
}
