import type { TSchema } from '@sinclair/typebox';
import { typedInput } from '../../../platform/graphql/typed-input.js';
import { ChatCompletionRequestSchema } from '../../inference/chat/chat-request.schema.js';

/**
 * The OpenAI chat-completions request as a typed GraphQL input of the training graph. The schema is the one the
 * REST route declares and the service validates (inference's ChatCompletionRequestSchema); this module only
 * copies it with the GraphQL names of its objects and enums (`Training…`, so the training graph owns its input
 * types whatever the inference graph names its own), so the fields cannot drift from the request schema.
 * Backend-specific parameters the schema does not declare travel in `extra`.
 */
type Annotations = { graphqlName: string; graphqlExtra?: string; description?: string };

function annotate(schema: TSchema, annotations: Annotations, properties?: Record<string, TSchema>): TSchema {
  return { ...schema, ...annotations, ...(properties ? { properties: { ...schema.properties, ...properties } } : {}) };
}

/** The object member of `T | null`, annotated, in place of that union's object member. */
function annotateNullable(schema: TSchema, annotations: Annotations, properties?: Record<string, TSchema>): TSchema {
  return { ...schema, anyOf: (schema.anyOf as TSchema[]).map((member) => (member.type === 'null' ? member : annotate(member, annotations, properties))) };
}

/** A property of the object member of a `T | null` union. */
function property(nullable: TSchema, name: string): TSchema {
  const object = (nullable.anyOf as TSchema[]).find((member) => member.type !== 'null')!;
  return object.properties[name] as TSchema;
}

const request = ChatCompletionRequestSchema as TSchema;
const props = request.properties as Record<string, TSchema>;
const message = props.messages!.items as TSchema;
const tools = props.tools!;
const toolArray = (tools.anyOf as TSchema[]).find((member) => member.type === 'array')!;
const tool = toolArray.items as TSchema;

const TrainingChatCompletionSchema = annotate(
  request,
  {
    graphqlName: 'TrainingChatCompletionInput',
    graphqlExtra: 'extra',
    description: 'An OpenAI chat-completions request to a base model or a checkpoint. Also at POST /training/v1/chat/completions',
  },
  {
    model: { ...props.model, description: 'A base model, or a checkpoint: wandb-artifact:///{entity}/{project}/{model}:step<N> or :latest' },
    messages: {
      ...props.messages,
      description: 'The conversation so far',
      items: annotate(
        message,
        { graphqlName: 'TrainingChatMessageInput', graphqlExtra: 'extra', description: 'One OpenAI chat message' },
        {
          role: {
            ...(message.properties.role as TSchema),
            graphqlName: 'TrainingChatMessageRole',
            // The streaming subscription takes this input: graphql-jit re-coerces its variables for every event.
            graphqlInternalNames: true,
            description: 'Who wrote the message',
          },
          content: { ...(message.properties.content as TSchema), description: 'The text, or a list of OpenAI content parts' },
          name: { ...(message.properties.name as TSchema), description: 'The name of the author' },
          tool_call_id: { ...(message.properties.tool_call_id as TSchema), description: 'The tool call a `tool` message answers' },
          tool_calls: { ...(message.properties.tool_calls as TSchema), description: 'The tool calls an assistant message made (OpenAI objects)' },
        },
      ),
    },
    stream: { ...props.stream, description: 'Must be false or absent here: streams are the trainingChatCompletionChunks subscription' },
    stream_options: annotateNullable(
      { ...props.stream_options, description: 'Streaming options' },
      { graphqlName: 'TrainingChatStreamOptionsInput', graphqlExtra: 'extra', description: 'Streaming options' },
      { include_usage: { ...property(props.stream_options!, 'include_usage'), description: 'End the stream with a chunk carrying the usage' } },
    ),
    temperature: { ...props.temperature, description: 'Sampling temperature (0–2)' },
    top_p: { ...props.top_p, description: 'Nucleus sampling probability mass (0–1)' },
    max_tokens: { ...props.max_tokens, description: 'The most tokens to generate' },
    max_completion_tokens: { ...props.max_completion_tokens, description: 'The most tokens to generate (newer name of max_tokens)' },
    stop: { ...props.stop, description: 'A string or up to 4 strings that end generation' },
    seed: { ...props.seed, description: 'Seed of the sampler, for repeatable samples' },
    n: { ...props.n, description: 'How many choices to generate' },
    logprobs: { ...props.logprobs, description: 'Return the logprob of every sampled token (what RL trains against)' },
    top_logprobs: { ...props.top_logprobs, description: 'How many alternatives per token to return with their logprobs (0–20)' },
    tools: {
      ...tools,
      description: 'Tools the model may call',
      anyOf: (tools.anyOf as TSchema[]).map((member) =>
        member.type === 'array'
          ? {
              ...member,
              items: annotate(
                tool,
                { graphqlName: 'TrainingChatToolInput', graphqlExtra: 'extra', description: 'A tool the model may call' },
                {
                  type: { ...(tool.properties.type as TSchema), description: 'The kind of tool (function)' },
                  function: annotate(
                    { ...(tool.properties.function as TSchema), description: 'The function' },
                    { graphqlName: 'TrainingChatFunctionInput', graphqlExtra: 'extra', description: 'A function the model may call (OpenAI function definition)' },
                    { name: { ...(tool.properties.function.properties.name as TSchema), description: 'The function name' } },
                  ),
                },
              ),
            }
          : member,
      ),
    },
    tool_choice: { ...props.tool_choice, description: 'Which tool to call: none, auto, required or an OpenAI tool choice object' },
    response_format: annotateNullable(
      { ...props.response_format, description: 'The format of the answer' },
      { graphqlName: 'TrainingChatResponseFormatInput', graphqlExtra: 'extra', description: 'The format of the answer (OpenAI response_format)' },
      { type: { ...property(props.response_format!, 'type'), description: 'text, json_object or json_schema' } },
    ),
    user: { ...props.user, description: 'An end-user id, recorded' },
  },
);

export const TrainingChatCompletionInput = typedInput(TrainingChatCompletionSchema);

/** The `request` argument is the whole REST body. */
export const AT_REQUEST = { arg: 'request', wire: ['body'] };
