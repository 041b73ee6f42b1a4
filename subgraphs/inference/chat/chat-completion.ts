/** The OpenAI wire shapes Trellis answers with (and reads from OpenAI-compatible upstreams). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: string; content: string | null; [key: string]: unknown };
    finish_reason: string | null;
    logprobs?: unknown;
  }[];
  usage?: Usage;
  [key: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null; logprobs?: unknown }[];
  usage?: Usage | null;
  [key: string]: unknown;
}

export function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null) return false;
  const usage = value as Record<string, unknown>;
  return typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number';
}
