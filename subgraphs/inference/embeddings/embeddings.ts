/** The OpenAI embeddings response, as Trellis answers it (and reads it from OpenAI-compatible upstreams). */
export interface EmbeddingsResponse {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
  [key: string]: unknown;
}

export function isEmbeddingsResponse(value: unknown): value is EmbeddingsResponse {
  if (typeof value !== 'object' || value === null) return false;
  const response = value as Record<string, unknown>;
  return Array.isArray(response.data) && typeof response.usage === 'object' && response.usage !== null;
}

/** OpenAI's `base64` encoding: the vector's float32 values, little-endian, base64-encoded. */
export function base64Embedding(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

/** The inputs of a request as a list: texts, or token-id lists (a flat list of ids is one input). */
export function inputsOf(input: string | string[] | number[] | number[][]): string[] | number[][] {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as string[] | number[][];
}
