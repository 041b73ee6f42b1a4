import { BadRequestError } from '../../../platform/errors.js';
import type { ChatCompletion, ChatCompletionChunk, Usage } from '../chat/chat-completion.js';
import { validateResponsesRequest, type ResponsesInputMessage, type ResponsesRequest } from './responses-request.schema.js';

/**
 * The OpenAI Responses API over the chat pipeline: a Responses request becomes a chat request (so it is validated,
 * limited, traced and counted exactly like chat), and the chat completion or its chunks become the Response object
 * or its `response.*` events. This module only translates; the chat service does the work.
 */

/** The chat request a Responses request asks for (refusing what cannot be one, see responses-request.schema.ts). */
export function toChatRequest(raw: unknown): Record<string, unknown> {
  const request = validateResponsesRequest(raw);
  const messages: { role: string; content: string | { type: 'text'; text: string }[] }[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else request.input.forEach((message, index) => messages.push({ role: message.role, content: chatContent(message, index) }));
  const stream = request.stream === true;
  return withoutUnset({
    model: request.model,
    messages,
    temperature: request.temperature,
    top_p: request.top_p,
    max_completion_tokens: request.max_output_tokens,
    user: request.user,
    stream,
    // The usage chunk becomes response.completed's usage.
    stream_options: stream ? { include_usage: true } : undefined,
  });
}

function chatContent(message: ResponsesInputMessage, index: number): string | { type: 'text'; text: string }[] {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part, partIndex) => {
    if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') return { type: 'text', text: part.text };
    throw new BadRequestError(
      `This server's Responses API accepts only text content (input.${index}.content.${partIndex} is '${part.type}')`,
      { param: `input.${index}.content.${partIndex}` },
    );
  });
}

function withoutUnset(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined && value !== null));
}

/** The parts of a Response that do not depend on the answer: identifiers and the request's settings, echoed. */
interface ResponseFrame {
  id: string;
  messageId: string;
  createdAt: number;
  request: ResponsesRequest;
}

function frameOf(raw: unknown, chatId: string, created: number): ResponseFrame {
  // The body was validated on its way into the chat service (toChatRequest): this only reads it.
  const request = raw as ResponsesRequest;
  const suffix = chatId.replace(/^chatcmpl-/, '');
  return { id: `resp_${suffix}`, messageId: `msg_${suffix}`, createdAt: created, request };
}

type OutputText = { type: 'output_text'; text: string; annotations: never[]; logprobs: never[] };
type MessageItem = { id: string; type: 'message'; status: 'in_progress' | 'completed' | 'incomplete'; role: 'assistant'; content: OutputText[] };

function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function responseObject(frame: ResponseFrame, status: 'in_progress' | 'completed' | 'incomplete', output: MessageItem[], usage: Usage | null) {
  const { request } = frame;
  return {
    id: frame.id,
    object: 'response',
    created_at: frame.createdAt,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: request.model,
    output,
    parallel_tool_calls: false,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: request.temperature ?? 1,
    text: { format: { type: 'text' } },
    tool_choice: 'none',
    tools: [],
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    usage: usage ? responsesUsage(usage) : null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

function responsesUsage(usage: Usage) {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
  };
}

const statusOf = (finishReason: string | null) => (finishReason === 'length' ? 'incomplete' : 'completed');

/** The Response object of a finished chat completion (`raw`: the Responses request it answers). */
export function toResponse(raw: unknown, completion: ChatCompletion) {
  const frame = frameOf(raw, completion.id, completion.created);
  const choice = completion.choices[0];
  const status = statusOf(choice?.finish_reason ?? null);
  const item: MessageItem = { id: frame.messageId, type: 'message', status, role: 'assistant', content: [outputText(choice?.message.content ?? '')] };
  return responseObject(frame, status, [item], completion.usage ?? null);
}

/**
 * The `response.*` server-sent events of a streamed chat completion, in OpenAI's order: created, in_progress, the
 * message item and its text part added, a text delta per chunk, then text/part/item done and completed (or
 * incomplete when the token limit cut the answer) carrying the usage.
 */
export async function* toResponseEvents(raw: unknown, chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<Record<string, unknown>> {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => ({ type, sequence_number: sequence++, ...fields });
  let frame: ResponseFrame | undefined;
  let text = '';
  let finishReason: string | null = null;
  let usage: Usage | null = null;
  const at = () => ({ item_id: frame!.messageId, output_index: 0, content_index: 0 });
  for await (const chunk of chunks) {
    if (!frame) {
      frame = frameOf(raw, chunk.id, chunk.created);
      const started = responseObject(frame, 'in_progress', [], null);
      yield event('response.created', { response: started });
      yield event('response.in_progress', { response: started });
      const item: MessageItem = { id: frame.messageId, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      yield event('response.output_item.added', { output_index: 0, item });
      yield event('response.content_part.added', { ...at(), part: outputText('') });
    }
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) continue;
    const delta = typeof choice.delta.content === 'string' ? choice.delta.content : '';
    if (delta) {
      text += delta;
      yield event('response.output_text.delta', { ...at(), delta, logprobs: [] });
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!frame) return;
  const status = statusOf(finishReason);
  const part = outputText(text);
  const item: MessageItem = { id: frame.messageId, type: 'message', status, role: 'assistant', content: [part] };
  yield event('response.output_text.done', { ...at(), text, logprobs: [] });
  yield event('response.content_part.done', { ...at(), part });
  yield event('response.output_item.done', { output_index: 0, item });
  yield event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: responseObject(frame, status, [item], usage) });
}
