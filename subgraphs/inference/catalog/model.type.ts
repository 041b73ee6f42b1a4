import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Deployment } from '../backends/openai-compatible/deployment.js';
import type { ServedCheckpoint } from '../checkpoints/promoted-checkpoints.js';
import type { CatalogEntry } from './model-catalog.js';
import { ownerOf, rootOf, servesEmbeddings } from './model-definition.schema.js';

@ObjectType('InferenceModel', { description: 'A model of the inference catalog (GET /inference/v1/models lists them)' })
export class InferenceModel {
  @Field(() => String, { description: 'The id clients pass as `model`' }) id!: string;
  @Field(() => String, { description: 'openai-compatible or embedded' }) backend!: string;
  @Field(() => String, { description: 'The underlying model that answers' }) root!: string;
  @Field(() => String, { description: 'Owner shown to clients (owned_by of GET /inference/v1/models)' }) ownedBy!: string;
  @Field(() => Date, { description: 'When the model was added to the catalog' }) created!: Date;
  @Field(() => String, {
    description: 'config (TRELLIS_MODELS_FILE), api (registerInferenceModel), or registry (a training checkpoint served under its registry name)',
  })
  source!: string;
  @Field(() => [String], { nullable: true, description: 'Teams that may use it; null = everyone' }) teams!: string[] | null;
  @Field(() => Boolean, { description: 'Whether it serves embeddings (POST /inference/v1/embeddings)' }) embeddings!: boolean;
  /** The catalog's entry; null for a checkpoint served under its registry name (it is in no catalog). */
  entry!: CatalogEntry | null;
}

export enum InferenceDeploymentHealth {
  HEALTHY = 'HEALTHY',
  COOLING_DOWN = 'COOLING_DOWN',
}
registerEnumType(InferenceDeploymentHealth, {
  name: 'InferenceDeploymentHealth',
  description: "A deployment's health as this process's balancer sees it",
  valuesConfig: {
    HEALTHY: { description: 'Answering: requests go to it, least busy first' },
    COOLING_DOWN: { description: 'Failed recently: passed over until coolingUntil unless no healthy deployment is left' },
  },
});

@ObjectType('InferenceDeployment', { description: 'One upstream server of a model (platform administrators only)' })
export class InferenceDeployment {
  @Field(() => String, { description: 'Label used in usage records' }) label!: string;
  @Field(() => String, { description: 'Base URL without any user info' }) baseUrl!: string;
  @Field(() => String, { description: 'Model name sent upstream' }) model!: string;
  @Field(() => Boolean, { description: 'Whether a credential is configured (it is never shown)' }) hasApiKey!: boolean;
  @Field(() => String, { nullable: true, description: 'Environment variable the credential is read from' }) apiKeyEnv!: string | null;
  @Field(() => Int, { description: 'How long a request waits for this server, in milliseconds' }) timeoutMs!: number;
  @Field(() => Int, { description: 'Requests in flight in this process' }) inFlight!: number;
  @Field(() => Date, { nullable: true, description: 'Passed over until then after a failure' }) coolingUntil!: Date | null;
  @Field(() => InferenceDeploymentHealth, { description: 'Whether requests go to it first (HEALTHY) or only when no other can (COOLING_DOWN)' })
  health!: InferenceDeploymentHealth;
}

export function toInferenceModel(entry: CatalogEntry): InferenceModel {
  return Object.assign(new InferenceModel(), {
    id: entry.id,
    backend: entry.definition.backend,
    root: rootOf(entry.definition),
    ownedBy: ownerOf(entry.definition),
    created: entry.createdAt,
    source: entry.source,
    teams: entry.definition.teams ?? null,
    embeddings: servesEmbeddings(entry.definition),
    entry,
  });
}

/**
 * A training checkpoint served under its registry name (`{entity}/{project}/{model}:{alias}`) as a model: the embedded
 * runtime answers with its adapter; the registry's access rules (the checkpoint's team) decide who may use it.
 */
export function servedCheckpointModel(checkpoint: ServedCheckpoint, entity: string): InferenceModel {
  return Object.assign(new InferenceModel(), {
    id: checkpoint.id,
    backend: 'embedded',
    root: checkpoint.baseModel,
    ownedBy: entity,
    created: checkpoint.createdAt,
    source: 'registry',
    teams: [entity],
    embeddings: false,
    entry: null,
  });
}

export function toInferenceDeployments(entry: CatalogEntry, live: readonly Deployment[]): InferenceDeployment[] {
  return (entry.definition.deployments ?? []).map((definition, index) => {
    const url = new URL(definition.base_url);
    url.username = '';
    url.password = '';
    const deployment = live[index];
    const cooling = deployment !== undefined && deployment.coolingUntil > Date.now();
    return Object.assign(new InferenceDeployment(), {
      label: `${entry.id}#${index}`,
      baseUrl: url.toString().replace(/\/$/, ''),
      model: deployment?.upstreamModel ?? definition.model ?? rootOf(entry.definition),
      hasApiKey: Boolean(definition.api_key || definition.api_key_env),
      apiKeyEnv: definition.api_key_env ?? null,
      timeoutMs: deployment?.timeoutMs ?? definition.timeout_ms ?? 0,
      inFlight: deployment?.inFlight ?? 0,
      coolingUntil: cooling ? new Date(deployment.coolingUntil) : null,
      health: cooling ? InferenceDeploymentHealth.COOLING_DOWN : InferenceDeploymentHealth.HEALTHY,
    });
  });
}
