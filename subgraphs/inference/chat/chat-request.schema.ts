import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The OpenAI chat-completions request, as the REST route documents it and as the GraphQL mutation and
 * subscription validate it (one schema, validateOrThrow). Unknown top-level parameters are allowed: OpenAI
 * clients send new ones all the time; backends that pass them through let the upstream judge them, and the
 * others refuse every parameter they do not honour (see chat/parameters.ts).
 *
 * The typed GraphQL input (chat.inputs.ts) is generated from this schema: `graphqlName`s name its input types,
 * `graphqlExtra` the JSONObject field that carries the parameters this schema does not declare.
 */
const nullable = <T extends TSchema>(schema: T, options: Record<string, unknown> = {}) => Type.Union([schema, Type.Null()], options);

export const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const ContentPart = Type.Object({ type: Type.String() }, { additionalProperties: true });

const ToolCallSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'The id the tool result answers with (`toolCallId`)' })),
    type: Type.Optional(Type.String({ description: 'The kind of tool: `function`' })),
    function: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ description: 'The function the model called' })),
          arguments: Type.Optional(Type.String({ description: 'Its arguments, as the JSON text the model wrote' })),
        },
        { additionalProperties: true, graphqlName: 'ChatToolCallFunctionInput', description: 'The function a tool call invokes' },
      ),
    ),
  },
  { additionalProperties: true, graphqlName: 'ChatToolCallInput', graphqlExtra: 'extra', description: 'A tool call an assistant message made' },
);

export const ChatMessageSchema = Type.Object(
  {
    role: Type.Union(
      MESSAGE_ROLES.map((role) => Type.Literal(role)),
      {
        graphqlName: 'ChatMessageRole',
        // The streaming subscriptions take this input: graphql-jit re-coerces their variables for every event.
        graphqlInternalNames: true,
        description: 'Who wrote a message of the conversation',
        graphqlValues: {
          system: 'Instructions to the model',
          developer: 'Instructions to the model (newer OpenAI name for system)',
          user: 'The end user',
          assistant: 'The model (earlier turns, or the turn to continue)',
          tool: 'The result of a tool call',
          function: 'The result of a function call (deprecated OpenAI form)',
        },
      },
    ),
    content: Type.Optional(
      nullable(Type.Union([Type.String(), Type.Array(ContentPart)]), {
        description: 'The text, or a list of content parts ({type: "text", text}, {type: "image_url", image_url: {url}})',
      }),
    ),
    name: Type.Optional(Type.String({ description: 'Name of the participant' })),
    tool_call_id: Type.Optional(Type.String({ description: 'Tool messages: the tool call this answers' })),
    tool_calls: Type.Optional(Type.Array(ToolCallSchema, { description: 'Assistant messages: the tool calls it made' })),
  },
  { additionalProperties: true, graphqlName: 'ChatMessageInput', graphqlExtra: 'extra', description: 'One message of the conversation' },
);

const ToolSchema = Type.Object(
  {
    type: Type.String({ description: 'The kind of tool: `function`' }),
    function: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, description: 'Name the model calls the function by' }),
          description: Type.Optional(Type.String({ description: 'What the function does, for the model' })),
          parameters: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the arguments' })),
        },
        { additionalProperties: true, graphqlName: 'ChatToolFunctionInput', graphqlExtra: 'extra', description: 'A function the model may call' },
      ),
    ),
  },
  { additionalProperties: true, graphqlName: 'ChatToolInput', graphqlExtra: 'extra', description: 'A tool the model may call' },
);

export const ChatCompletionRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 512, description: 'The catalog model to ask (an id of `inferenceModels`)' }),
    messages: Type.Array(ChatMessageSchema, { minItems: 1, description: 'The conversation so far, oldest first' }),
    stream: Type.Optional(nullable(Type.Boolean(), { description: 'Ignored by GraphQL (the subscription streams); REST answers server-sent events' })),
    stream_options: Type.Optional(
      nullable(
        Type.Object(
          { include_usage: Type.Optional(Type.Boolean({ description: 'Send a last chunk with the token usage' })) },
          { additionalProperties: true, graphqlName: 'ChatStreamOptionsInput', description: 'Options of a streamed completion' },
        ),
        { description: 'Options of a streamed completion' },
      ),
    ),
    temperature: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 2 }), { description: 'Sampling temperature, 0 to 2' })),
    top_p: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 1 }), { description: 'Nucleus sampling mass, 0 to 1' })),
    max_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1 }), { description: 'Most tokens to generate (older name of maxCompletionTokens)' })),
    max_completion_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1 }), { description: 'Most tokens to generate' })),
    stop: Type.Optional(nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })]), { description: 'A stop sequence, or a list of up to 4' })),
    seed: Type.Optional(nullable(Type.Integer(), { description: 'Seed for reproducible sampling, where the backend supports it' })),
    n: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 128 }), { description: 'Number of choices to generate' })),
    logprobs: Type.Optional(nullable(Type.Boolean(), { description: 'Return the log probabilities of the output tokens' })),
    top_logprobs: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: 20 }), { description: 'Most likely alternatives returned per token (0 to 20)' })),
    tools: Type.Optional(nullable(Type.Array(ToolSchema), { description: 'Tools the model may call' })),
    tool_choice: Type.Optional(Type.Unknown({ description: '`none`, `auto`, `required`, or the tool to call ({type, function: {name}})' })),
    response_format: Type.Optional(
      nullable(
        Type.Object(
          {
            type: Type.String({ description: '`text`, `json_object` or `json_schema`' }),
            json_schema: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'For `json_schema`: {name, schema, strict}' })),
          },
          { additionalProperties: true, graphqlName: 'ChatResponseFormatInput', description: 'The form the answer must take' },
        ),
        { description: 'The form the answer must take' },
      ),
    ),
    user: Type.Optional(nullable(Type.String({ maxLength: 512 }), { description: 'Your identifier of the end user (recorded in usage)' })),
    // OpenAI's limits (its Metadata type): a backend that only records the tags must still refuse what OpenAI refuses.
    metadata: Type.Optional(
      nullable(
        Type.Object(
          {},
          {
            additionalProperties: Type.String({ maxLength: 512 }),
            propertyNames: { maxLength: 64 },
            maxProperties: 16,
            description: "OpenAI's metadata: at most 16 keys of at most 64 characters, text values of at most 512",
          },
        ),
        { description: "Your tags of the completion (OpenAI's metadata); a traced completion keeps them in its call's inputs" },
      ),
    ),
  },
  {
    additionalProperties: true,
    graphqlName: 'ChatCompletionRequestInput',
    graphqlExtra: 'extra',
    description: 'An OpenAI chat completion request (the body of POST /inference/v1/chat/completions, in camelCase)',
  },
);

export type ChatCompletionRequest = Static<typeof ChatCompletionRequestSchema>;
export type ChatMessage = Static<typeof ChatMessageSchema>;
