import { Field, Float, Int, ObjectType } from 'type-graphql';
import type { EmbeddingsResponse } from './embeddings.js';

/**
 * The typed GraphQL view of OpenAI's embeddings response (what `createEmbeddings` answers). The REST route answers
 * the wire object verbatim (openaiEmbeddings), base64 included; here vectors are always numbers.
 */
@ObjectType('Embedding', { description: 'The vector of one input' })
export class EmbeddingObject {
  @Field(() => Int, { description: 'Position of the input it embeds' }) index!: number;
  @Field(() => [Float], { description: 'The vector' }) embedding!: number[];
}

@ObjectType('EmbeddingsUsage', { description: 'Tokens an embeddings request consumed' })
export class EmbeddingsUsage {
  @Field(() => Int, { description: 'Tokens of the inputs' }) promptTokens!: number;
  @Field(() => Int, { description: 'All tokens counted (the same: nothing is generated)' }) totalTokens!: number;
}

@ObjectType('Embeddings', { description: 'Embeddings of the inputs (OpenAI embeddings list; also at POST /inference/v1/embeddings)' })
export class EmbeddingsObject {
  @Field(() => String, { description: 'The model that answered, as the request named it' }) model!: string;
  @Field(() => [EmbeddingObject], { description: 'One vector per input, in input order' }) data!: EmbeddingObject[];
  @Field(() => EmbeddingsUsage, { description: 'Tokens consumed' }) usage!: EmbeddingsUsage;
}

export function toEmbeddingsObject(response: EmbeddingsResponse): EmbeddingsObject {
  return {
    model: response.model,
    data: response.data.map((item) => ({ index: item.index, embedding: typeof item.embedding === 'string' ? fromBase64(item.embedding) : item.embedding })),
    usage: { promptTokens: response.usage.prompt_tokens, totalTokens: response.usage.total_tokens ?? response.usage.prompt_tokens },
  };
}

function fromBase64(encoded: string): number[] {
  const bytes = Buffer.from(encoded, 'base64');
  return Array.from({ length: Math.floor(bytes.length / 4) }, (_, index) => bytes.readFloatLE(index * 4));
}
