import { Type, type Static } from '@sinclair/typebox';
import { BACKEND_KINDS } from '../backends/chat-backend.js';
import { ModelPriceSchema } from '../pricing/model-price.schema.js';

/**
 * One catalog model, as administrators write it in TRELLIS_MODELS_FILE or send it to `registerInferenceModel`
 * (the same schema validates both). Credentials: `api_key` (stored, never shown again) or `api_key_env` (the
 * name of an environment variable of the serving process, so the secret need not be in the file at all).
 */
export const DeploymentDefinitionSchema = Type.Object(
  {
    base_url: Type.String({ pattern: '^https?://[^\\s]+$', description: 'OpenAI base URL, e.g. http://127.0.0.1:8000/v1' }),
    api_key: Type.Optional(Type.String({ minLength: 1, description: 'The credential sent upstream (stored, never shown again)' })),
    api_key_env: Type.Optional(
      Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Or: the environment variable of the serving process holding the credential' }),
    ),
    model: Type.Optional(Type.String({ minLength: 1, description: 'Model name sent upstream (default: the root)' })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 3_600_000, description: 'How long to wait for the upstream, in milliseconds' })),
  },
  { additionalProperties: false, graphqlName: 'InferenceDeploymentInput', description: 'One OpenAI-compatible server that can answer for the model' },
);

export const ModelDefinitionSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,255}$', description: 'Public model id clients pass as `model`' }),
    backend: Type.Union(
      BACKEND_KINDS.map((kind) => Type.Literal(kind)),
      {
        graphqlName: 'InferenceBackendKind',
        description: 'What serves a catalog model',
        graphqlValues: { 'openai-compatible': 'OpenAI-compatible servers (the deployments)', embedded: "The platform's in-process model runtime" },
      },
    ),
    root: Type.Optional(Type.String({ minLength: 1, description: 'The underlying model (default: the id)' })),
    owned_by: Type.Optional(Type.String({ minLength: 1, description: 'Owner shown to clients (default: the one team, else trellis)' })),
    teams: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Only members of these teams may use it (default: everyone)' })),
    deployments: Type.Optional(Type.Array(DeploymentDefinitionSchema, { description: 'openai-compatible: the servers, tried healthiest and least busy first' })),
    embeddings: Type.Optional(
      Type.Boolean({
        description:
          'Whether the model serves POST /inference/v1/embeddings: openai-compatible models only when set (their servers must offer /embeddings); embedded models unless set to false',
      }),
    ),
    pricing: Type.Optional(ModelPriceSchema),
  },
  {
    additionalProperties: false,
    graphqlName: 'InferenceModelDefinitionInput',
    description: 'A catalog model, as administrators write it in TRELLIS_MODELS_FILE (in camelCase)',
  },
);

export const ModelsFileSchema = Type.Object({ models: Type.Array(ModelDefinitionSchema) }, { additionalProperties: false });

export type ModelDefinition = Static<typeof ModelDefinitionSchema>;
export type DeploymentDefinition = Static<typeof DeploymentDefinitionSchema>;

/** `root` of the OpenAI model object: the model that actually answers. */
export function rootOf(definition: ModelDefinition): string {
  return definition.root ?? definition.deployments?.[0]?.model ?? definition.id;
}

/**
 * `owned_by` of the OpenAI model object: as configured, else the one team the model is reserved for, else the
 * platform that registered it.
 */
export function ownerOf(definition: ModelDefinition): string {
  if (definition.owned_by) return definition.owned_by;
  if (definition.teams?.length === 1) return definition.teams[0]!;
  return 'trellis';
}

/**
 * Whether the model answers embeddings requests. An OpenAI-compatible server may or may not offer /embeddings, so
 * such a model must say so; the embedded runtime computes them from any model it serves.
 */
export function servesEmbeddings(definition: ModelDefinition): boolean {
  return definition.embeddings ?? definition.backend === 'embedded';
}
