import { Directive, Field, Float, ObjectType } from 'type-graphql';
import type { ModelTokens } from './token-usage.js';

/**
 * Token usage crosses into the inference subgraph, which owns the model price table, as federation entities whose
 * key *is* the usage: inference adds `cost` to both types and resolves it from the representation alone (no table
 * of either subgraph is read by the other, and no call or trace id has to be understood by inference). Tracing only
 * counts tokens; what a token costs is inference's concern.
 *
 * Token counts are Float: a project's total over a window can pass GraphQL Int's 2^31.
 */
export const TOKENS = {
  input: 'Input (prompt) tokens: prompt_tokens, or input_tokens where the provider names them so',
  output: 'Output (completion) tokens: completion_tokens, or output_tokens',
  total: 'Input and output tokens together',
} as const;

@ObjectType('ModelTokenUsage', { description: "One model's tokens in a call, a trace or a time window (summary.usage of traced calls)" })
@Directive('@key(fields: "model inputTokens outputTokens")')
export class ModelTokenUsage {
  @Field(() => String, { description: 'The model name, as the client recorded it (the key of summary.usage)' }) model!: string;
  @Field(() => Float, { description: TOKENS.input }) inputTokens!: number;
  @Field(() => Float, { description: TOKENS.output }) outputTokens!: number;
  @Field(() => Float, { description: TOKENS.total }) totalTokens!: number;
}

@ObjectType('TokenUsage', { description: 'Tokens of a call, a trace or a time window, per model and in total' })
@Directive('@key(fields: "byModel { model inputTokens outputTokens }")')
export class TokenUsage {
  @Field(() => [ModelTokenUsage], { description: 'Per model, by model name' }) byModel!: ModelTokenUsage[];
  @Field(() => Float, { description: `${TOKENS.input}, all models` }) inputTokens!: number;
  @Field(() => Float, { description: `${TOKENS.output}, all models` }) outputTokens!: number;
  @Field(() => Float, { description: `${TOKENS.total}, all models` }) totalTokens!: number;
}

export function toModelTokenUsage(tokens: ModelTokens): ModelTokenUsage {
  return Object.assign(new ModelTokenUsage(), { ...tokens, totalTokens: tokens.inputTokens + tokens.outputTokens });
}

export function toTokenUsage(models: readonly ModelTokens[]): TokenUsage {
  const byModel = models.map(toModelTokenUsage);
  const inputTokens = byModel.reduce((sum, entry) => sum + entry.inputTokens, 0);
  const outputTokens = byModel.reduce((sum, entry) => sum + entry.outputTokens, 0);
  return Object.assign(new TokenUsage(), { byModel, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens });
}

/** Reference resolvers: a representation carries every count, so the entity is rebuilt from it. */
export const tokenUsageReferences = {
  ModelTokenUsage: (representation: Record<string, unknown>) => toModelTokenUsage(representation as unknown as ModelTokens),
  TokenUsage: (representation: Record<string, unknown>) => toTokenUsage(representation.byModel as ModelTokens[]),
};
