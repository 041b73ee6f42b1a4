import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The OpenAI chat-completions request, as the REST route documents it and as the GraphQL mutation and
 * subscription validate it (one schema, validateOrThrow). Unknown top-level parameters are allowed: OpenAI
 * clients send new ones all the time; backends that pass them through let the upstream judge them, and the
 * others refuse every parameter they do not honour (see chat/parameters.ts).
 */
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const ContentPart = Type.Object({ type: Type.String() }, { additionalProperties: true });

export const ChatMessageSchema = Type.Object(
  {
    role: Type.Union(MESSAGE_ROLES.map((role) => Type.Literal(role))),
    content: Type.Optional(nullable(Type.Union([Type.String(), Type.Array(ContentPart)]))),
    name: Type.Optional(Type.String()),
    tool_call_id: Type.Optional(Type.String()),
    tool_calls: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { additionalProperties: true },
);

const ToolSchema = Type.Object(
  {
    type: Type.String(),
    function: Type.Optional(Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

export const ChatCompletionRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 512 }),
    messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
    stream: Type.Optional(nullable(Type.Boolean())),
    stream_options: Type.Optional(nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }))),
    temperature: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    top_p: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    max_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
    max_completion_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
    stop: Type.Optional(nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })]))),
    seed: Type.Optional(nullable(Type.Integer())),
    n: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 128 }))),
    logprobs: Type.Optional(nullable(Type.Boolean())),
    top_logprobs: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
    tools: Type.Optional(nullable(Type.Array(ToolSchema))),
    tool_choice: Type.Optional(Type.Unknown()),
    response_format: Type.Optional(nullable(Type.Object({ type: Type.String() }, { additionalProperties: true }))),
    user: Type.Optional(nullable(Type.String({ maxLength: 512 }))),
  },
  { additionalProperties: true },
);

export type ChatCompletionRequest = Static<typeof ChatCompletionRequestSchema>;
export type ChatMessage = Static<typeof ChatMessageSchema>;
