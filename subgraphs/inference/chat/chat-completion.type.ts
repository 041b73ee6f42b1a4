import { Field, Int, ObjectType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { ChatCompletion, ChatCompletionChunk, Usage } from './chat-completion.js';

/**
 * The typed GraphQL view of OpenAI's chat completion and chunk objects (what `createChatCompletion` and
 * `chatCompletionChunks` answer). The REST route answers the wire objects verbatim (chat.resolver.ts' wire fields),
 * so nothing here runs on its path.
 */
@ObjectType('ChatCompletionUsage', { description: 'Tokens a completion consumed' })
export class ChatCompletionUsage {
  @Field(() => Int, { description: 'Tokens of the prompt (the messages)' }) promptTokens!: number;
  @Field(() => Int, { description: 'Tokens generated' }) completionTokens!: number;
  @Field(() => Int, { description: 'Prompt and completion tokens together' }) totalTokens!: number;
}

@ObjectType('ChatToolCallFunction', { description: 'The function a tool call invokes' })
export class ChatToolCallFunction {
  @Field(() => String, { nullable: true, description: 'The function called (streams: in the first delta only)' }) name!: string | null;
  @Field(() => String, { nullable: true, description: 'Its arguments, as the JSON text the model wrote (streams: the next piece)' }) arguments!: string | null;
}

@ObjectType('ChatToolCall', { description: 'A tool call the model made' })
export class ChatToolCall {
  @Field(() => Int, { nullable: true, description: 'Streams: which tool call of the message this delta continues' }) index!: number | null;
  @Field(() => String, { nullable: true, description: 'Id to answer with in a tool message (streams: in the first delta only)' }) id!: string | null;
  @Field(() => String, { nullable: true, description: 'The kind of tool: `function`' }) type!: string | null;
  @Field(() => ChatToolCallFunction, { nullable: true, description: 'The function called' }) function!: ChatToolCallFunction | null;
}

@ObjectType('ChatCompletionMessage', { description: "A message of the model's answer (or, in a chunk, the piece of it that arrived)" })
export class ChatCompletionMessage {
  @Field(() => String, { nullable: true, description: '`assistant` (streams: in the first delta only)' }) role!: string | null;
  @Field(() => String, { nullable: true, description: 'The text (streams: the next piece of it); null when the model only called tools' }) content!: string | null;
  @Field(() => String, { nullable: true, description: 'Why the model refused, when it did' }) refusal!: string | null;
  @Field(() => [ChatToolCall], { description: 'Tool calls the model made (empty when none)' }) toolCalls!: ChatToolCall[];
}

@ObjectType('ChatCompletionChoice', { description: 'One of the answers generated (`n` of them)' })
export class ChatCompletionChoice {
  @Field(() => Int, { description: 'Position among the choices' }) index!: number;
  @Field(() => ChatCompletionMessage, { description: 'The answer (in a chunk: the delta)' }) message!: ChatCompletionMessage;
  @Field(() => String, { nullable: true, description: '`stop`, `length`, `tool_calls` or `content_filter`; null until the choice is finished' })
  finishReason!: string | null;
  @Field(() => JSONScalar, { nullable: true, description: 'Log probabilities of the output tokens, as the backend reported them (when asked for)' })
  logprobs!: unknown;
}

@ObjectType('ChatCompletion', { description: 'A chat completion (OpenAI `chat.completion`; also at POST /inference/v1/chat/completions)' })
export class ChatCompletionObject {
  @Field(() => String, { description: 'Id of the completion' }) id!: string;
  @Field(() => GraphQLSafeInt, { description: 'When it was created, in Unix seconds' }) created!: number;
  @Field(() => String, { description: 'The model that answered, as the request named it' }) model!: string;
  @Field(() => String, { nullable: true, description: 'Backend configuration fingerprint, when the backend reports one' }) systemFingerprint!: string | null;
  @Field(() => [ChatCompletionChoice], { description: 'The answers generated' }) choices!: ChatCompletionChoice[];
  @Field(() => ChatCompletionUsage, { nullable: true, description: 'Tokens consumed, when the backend reports them' }) usage!: ChatCompletionUsage | null;
}

@ObjectType('ChatCompletionChunk', { description: 'A piece of a streamed chat completion (OpenAI `chat.completion.chunk`)' })
export class ChatCompletionChunkObject {
  @Field(() => String, { description: 'Id of the completion (the same on every chunk)' }) id!: string;
  @Field(() => GraphQLSafeInt, { description: 'When the completion was created, in Unix seconds' }) created!: number;
  @Field(() => String, { description: 'The model that answers, as the request named it' }) model!: string;
  @Field(() => String, { nullable: true, description: 'Backend configuration fingerprint, when the backend reports one' }) systemFingerprint!: string | null;
  @Field(() => [ChatCompletionChoice], { description: "The choices' deltas (empty on the last, usage-only chunk)" }) choices!: ChatCompletionChoice[];
  @Field(() => ChatCompletionUsage, { nullable: true, description: 'Tokens consumed: on the last chunk, when `streamOptions.includeUsage` asked for it' })
  usage!: ChatCompletionUsage | null;
}

type WireMessage = Record<string, unknown> | undefined;

export function toChatCompletionObject(completion: ChatCompletion): ChatCompletionObject {
  return {
    id: completion.id,
    created: completion.created,
    model: completion.model,
    systemFingerprint: stringOrNull(completion.system_fingerprint),
    choices: completion.choices.map((choice) => toChoice(choice.index, choice.message, choice.finish_reason, choice.logprobs)),
    usage: toUsage(completion.usage),
  };
}

export function toChatCompletionChunkObject(chunk: ChatCompletionChunk): ChatCompletionChunkObject {
  return {
    id: chunk.id,
    created: chunk.created,
    model: chunk.model,
    systemFingerprint: stringOrNull(chunk.system_fingerprint),
    choices: chunk.choices.map((choice) => toChoice(choice.index, choice.delta, choice.finish_reason, choice.logprobs)),
    usage: toUsage(chunk.usage),
  };
}

/** A stream of wire chunks as typed chunks; ending it early (return()) ends the wire stream too. */
export async function* toChatCompletionChunkObjects(chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<ChatCompletionChunkObject> {
  for await (const chunk of chunks) yield toChatCompletionChunkObject(chunk);
}

function toChoice(index: number, message: WireMessage, finishReason: string | null | undefined, logprobs: unknown): ChatCompletionChoice {
  const toolCalls = Array.isArray(message?.tool_calls) ? (message.tool_calls as Record<string, unknown>[]) : [];
  return {
    index,
    message: {
      role: stringOrNull(message?.role),
      content: stringOrNull(message?.content),
      refusal: stringOrNull(message?.refusal),
      toolCalls: toolCalls.map((call) => {
        const fn = call.function as Record<string, unknown> | undefined;
        return {
          index: typeof call.index === 'number' ? call.index : null,
          id: stringOrNull(call.id),
          type: stringOrNull(call.type),
          function: fn ? { name: stringOrNull(fn.name), arguments: stringOrNull(fn.arguments) } : null,
        };
      }),
    },
    finishReason: finishReason ?? null,
    logprobs: logprobs ?? null,
  };
}

function toUsage(usage: Usage | null | undefined): ChatCompletionUsage | null {
  if (!usage) return null;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
