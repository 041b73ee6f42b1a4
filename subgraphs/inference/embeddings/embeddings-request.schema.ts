import { Type, type Static } from '@sinclair/typebox';

/**
 * The OpenAI embeddings request (POST /inference/v1/embeddings), as the REST route documents it and the service
 * validates it; the typed GraphQL input of createEmbeddings is generated from it (embeddings.inputs.ts). `input` is a string, a list of strings, or token ids (a list, or a list of lists), as OpenAI takes
 * it; at most 2048 inputs, as OpenAI allows. Unknown parameters are allowed (an upstream judges them).
 */
const TokenIds = Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 });

export const EmbeddingsRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 512, description: 'The catalog model to ask (one that serves embeddings)' }),
    input: Type.Union(
      [
        Type.String(),
        Type.Array(Type.String(), { minItems: 1, maxItems: 2048 }),
        TokenIds,
        Type.Array(TokenIds, { minItems: 1, maxItems: 2048 }),
      ],
      { description: 'The text to embed: a string, a list of strings, or token ids (a list or a list of lists)' },
    ),
    encoding_format: Type.Optional(
      Type.Union([Type.Literal('float'), Type.Literal('base64')], {
        graphqlName: 'EmbeddingEncodingFormat',
        description: 'How the vectors travel on the OpenAI wire (the typed GraphQL result always has numbers)',
        graphqlValues: { float: 'A list of numbers (default)', base64: 'Little-endian float32 values, base64-encoded (what the OpenAI SDK asks for)' },
      }),
    ),
    dimensions: Type.Optional(Type.Integer({ minimum: 1, description: 'Truncate the vectors to this many dimensions, where the model can' })),
    user: Type.Optional(Type.String({ maxLength: 512, description: 'Your identifier of the end user (recorded in usage)' })),
  },
  {
    additionalProperties: true,
    graphqlName: 'EmbeddingsRequestInput',
    graphqlExtra: 'extra',
    description: 'An OpenAI embeddings request (the body of POST /inference/v1/embeddings, in camelCase)',
  },
);

export type EmbeddingsRequest = Static<typeof EmbeddingsRequestSchema>;
