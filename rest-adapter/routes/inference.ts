import { Type } from '@sinclair/typebox';
import { ChatCompletionRequestSchema } from '../../subgraphs/inference/chat/chat-request.schema.js';
import { defineRoute, type RouteInput } from '../route.js';

/**
 * Family B (OpenAI-compatible inference) under /inference/v1. Usage attribution comes from `Compat-Project`
 * (the spec's header) or `OpenAI-Project` (what the OpenAI SDK's `project` option sends).
 */
function projectHeader(input: RouteInput): string | null {
  const value = input.headers['compat-project'] ?? input.headers['openai-project'];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

const ModelObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  root: Type.String(),
});

export const inferenceRoutes = [
  defineRoute({
    family: 'inference',
    method: 'GET',
    path: '/models',
    summary: 'Models the caller may use',
    schema: { response: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelObject) }) },
    subgraph: 'inference',
    operation: 'query InferenceModels { inferenceModels { id created ownedBy root } }',
    variables: () => ({}),
    response: (data: { inferenceModels: { id: string; created: string; ownedBy: string; root: string }[] }) => ({
      object: 'list',
      data: data.inferenceModels.map((model) => ({
        id: model.id,
        object: 'model',
        created: Math.floor(Date.parse(model.created) / 1000),
        owned_by: model.ownedBy,
        root: model.root,
      })),
    }),
  }),
  defineRoute({
    family: 'inference',
    method: 'POST',
    path: '/chat/completions',
    summary: 'OpenAI chat completion (stream: true answers server-sent events)',
    schema: { body: ChatCompletionRequestSchema },
    // Rejected requests are recorded as usage too, so the operation validates (with the same schema).
    bodyValidation: 'operation',
    // The hot path: executed on the inference subgraph directly when it runs in this process.
    subgraph: 'inference',
    // The OpenAI wire protocol: the body and the answer verbatim (chat.resolver.ts says why not the typed input).
    operation: 'mutation ChatCompletion($body: JSONObject!, $project: String) { openaiChatCompletion(body: $body, project: $project) }',
    variables: (input) => ({ body: input.body, project: projectHeader(input) }),
    response: (data: { openaiChatCompletion: unknown }) => data.openaiChatCompletion,
    sse: {
      when: (input) => (input.body as { stream?: unknown } | null)?.stream === true,
      subgraph: 'inference',
      subscription:
        'subscription ChatCompletionChunks($body: JSONObject!, $project: String) { openaiChatCompletionChunks(body: $body, project: $project) }',
      variables: (input) => ({ body: input.body, project: projectHeader(input) }),
      event: (data: { openaiChatCompletionChunks: unknown }) => data.openaiChatCompletionChunks,
      done: '[DONE]',
    },
  }),
];
