import { Type, type Static } from '@sinclair/typebox';

/**
 * What a model's tokens cost, in US dollars per million tokens: the one definition, used by a catalog model's
 * `pricing` (TRELLIS_MODELS_FILE, registerInferenceModel) and by TRELLIS_MODEL_PRICES_FILE.
 */
export const ModelPriceSchema = Type.Object(
  {
    input_per_million: Type.Number({ minimum: 0, maximum: 1_000_000, description: 'US dollars per million input (prompt) tokens' }),
    output_per_million: Type.Number({ minimum: 0, maximum: 1_000_000, description: 'US dollars per million output (completion) tokens' }),
  },
  { additionalProperties: false, graphqlName: 'InferenceModelPriceInput', description: "What the model's tokens cost (overrides the shipped price table)" },
);
export type ModelPrice = Static<typeof ModelPriceSchema>;

/** TRELLIS_MODEL_PRICES_FILE: `{ "prices": { "<model name>": { input_per_million, output_per_million } } }`. */
export const ModelPricesFileSchema = Type.Object(
  { prices: Type.Record(Type.String({ minLength: 1 }), ModelPriceSchema) },
  { additionalProperties: false },
);
