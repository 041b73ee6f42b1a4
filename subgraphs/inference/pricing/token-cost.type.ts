import { Directive, Field, Float, ObjectType } from 'type-graphql';

/**
 * The tracing subgraph's token-usage entities, as inference sees them: only their keys (the counts themselves), to
 * which it adds `cost` from its price table. Descriptions of shared key fields match tracing's (one per field in
 * the composed graph).
 */
const TOKENS = {
  input: 'Input (prompt) tokens: prompt_tokens, or input_tokens where the provider names them so',
  output: 'Output (completion) tokens: completion_tokens, or output_tokens',
} as const;

export const COST_DESCRIPTION =
  'US dollars at the model price table (the catalog model’s pricing, TRELLIS_MODEL_PRICES_FILE, or the shipped list prices); null when the model has no price';

@ObjectType('ModelTokenUsage')
@Directive('@key(fields: "model inputTokens outputTokens")')
export class ModelTokenUsageCost {
  @Field(() => String, { description: 'The model name, as the client recorded it (the key of summary.usage)' }) model!: string;
  @Field(() => Float, { description: TOKENS.input }) inputTokens!: number;
  @Field(() => Float, { description: TOKENS.output }) outputTokens!: number;
}

@ObjectType('TokenUsage')
@Directive('@key(fields: "byModel { model inputTokens outputTokens }")')
export class TokenUsageCost {
  @Field(() => [ModelTokenUsageCost], { description: 'Per model, by model name' }) byModel!: ModelTokenUsageCost[];
}

@ObjectType('ModelPrice', { description: "What a model's tokens cost, and where that price comes from" })
export class ModelPriceInfo {
  @Field(() => Float, { description: 'US dollars per million input (prompt) tokens' }) inputPerMillion!: number;
  @Field(() => Float, { description: 'US dollars per million output (completion) tokens' }) outputPerMillion!: number;
  @Field(() => String, { description: "catalog (the model's own pricing), file (TRELLIS_MODEL_PRICES_FILE) or default (the shipped table)" })
  source!: string;
}
