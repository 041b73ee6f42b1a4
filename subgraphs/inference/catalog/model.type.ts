import { Field, Int, ObjectType } from 'type-graphql';
import type { Deployment } from '../backends/openai-compatible/deployment.js';
import type { CatalogEntry } from './model-catalog.js';
import { ownerOf, rootOf } from './model-definition.schema.js';

@ObjectType('InferenceModel', { description: 'A model of the inference catalog (GET /inference/v1/models lists them)' })
export class InferenceModel {
  @Field(() => String, { description: 'The id clients pass as `model`' }) id!: string;
  @Field(() => String, { description: 'openai-compatible or embedded' }) backend!: string;
  @Field(() => String, { description: 'The underlying model that answers' }) root!: string;
  @Field(() => String) ownedBy!: string;
  @Field(() => Date) created!: Date;
  @Field(() => String, { description: 'config (TRELLIS_MODELS_FILE) or api (registerInferenceModel)' }) source!: string;
  @Field(() => [String], { nullable: true, description: 'Teams that may use it; null = everyone' }) teams!: string[] | null;
  entry!: CatalogEntry;
}

@ObjectType('InferenceDeployment', { description: 'One upstream server of a model (platform administrators only)' })
export class InferenceDeployment {
  @Field(() => String, { description: 'Label used in usage records' }) label!: string;
  @Field(() => String, { description: 'Base URL without any user info' }) baseUrl!: string;
  @Field(() => String, { description: 'Model name sent upstream' }) model!: string;
  @Field(() => Boolean, { description: 'Whether a credential is configured (it is never shown)' }) hasApiKey!: boolean;
  @Field(() => String, { nullable: true, description: 'Environment variable the credential is read from' }) apiKeyEnv!: string | null;
  @Field(() => Int) timeoutMs!: number;
  @Field(() => Int, { description: 'Requests in flight in this process' }) inFlight!: number;
  @Field(() => Date, { nullable: true, description: 'Passed over until then after a failure' }) coolingUntil!: Date | null;
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
    entry,
  });
}

export function toInferenceDeployments(entry: CatalogEntry, live: readonly Deployment[]): InferenceDeployment[] {
  return (entry.definition.deployments ?? []).map((definition, index) => {
    const url = new URL(definition.base_url);
    url.username = '';
    url.password = '';
    const deployment = live[index];
    return Object.assign(new InferenceDeployment(), {
      label: `${entry.id}#${index}`,
      baseUrl: url.toString().replace(/\/$/, ''),
      model: deployment?.upstreamModel ?? definition.model ?? rootOf(entry.definition),
      hasApiKey: Boolean(definition.api_key || definition.api_key_env),
      apiKeyEnv: definition.api_key_env ?? null,
      timeoutMs: deployment?.timeoutMs ?? definition.timeout_ms ?? 0,
      inFlight: deployment?.inFlight ?? 0,
      coolingUntil: deployment && deployment.coolingUntil > Date.now() ? new Date(deployment.coolingUntil) : null,
    });
  });
}
