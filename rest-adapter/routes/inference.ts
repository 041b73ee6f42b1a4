import { Type } from '@sinclair/typebox';
import { ChatCompletionRequestSchema } from '../../subgraphs/inference/chat/chat-request.schema.js';
import { EmbeddingsRequestSchema } from '../../subgraphs/inference/embeddings/embeddings-request.schema.js';
import { ResponsesRequestSchema } from '../../subgraphs/inference/responses/responses-request.schema.js';
import { defineRoute, type RouteInput, type UnknownPathRule } from '../route.js';

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

interface ModelFields {
  id: string;
  created: string;
  ownedBy: string;
  root: string;
}

const MODEL_FIELDS = 'id created ownedBy root';

function modelObject(model: ModelFields) {
  return {
    id: model.id,
    object: 'model',
    created: Math.floor(Date.parse(model.created) / 1000),
    owned_by: model.ownedBy,
    root: model.root,
  };
}

export const inferenceRoutes = [
  defineRoute({
    family: 'inference',
    method: 'GET',
    path: '/models',
    summary: 'Models the caller may use',
    schema: { response: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelObject) }) },
    subgraph: 'inference',
    operation: `query InferenceModels { inferenceModels { ${MODEL_FIELDS} } }`,
    variables: () => ({}),
    response: (data: { inferenceModels: ModelFields[] }) => ({ object: 'list', data: data.inferenceModels.map(modelObject) }),
  }),
  defineRoute({
    family: 'inference',
    method: 'GET',
    // A model id with a slash (`meta-llama/Llama-3-8B`) arrives escaped (%2F), as OpenAI clients send it: one segment.
    path: '/models/:model',
    summary: 'One model the caller may use (404 model_not_found otherwise)',
    schema: { params: Type.Object({ model: Type.String({ minLength: 1 }) }), response: ModelObject },
    subgraph: 'inference',
    operation: `query InferenceModel($id: String!) { inferenceModel(id: $id) { ${MODEL_FIELDS} } }`,
    variables: (input: RouteInput<unknown, { model: string }>) => ({ id: input.params.model }),
    response: (data: { inferenceModel: ModelFields }) => modelObject(data.inferenceModel),
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
  defineRoute({
    family: 'inference',
    method: 'POST',
    path: '/responses',
    summary: 'OpenAI Responses API over the chat pipeline: text in, one message out (stream: true answers response.* server-sent events)',
    schema: { body: ResponsesRequestSchema },
    // Validated (and refused features named) by the operation, so rejected requests are recorded as usage, as on chat.
    bodyValidation: 'operation',
    subgraph: 'inference',
    operation: 'mutation Response($body: JSONObject!, $project: String) { openaiResponse(body: $body, project: $project) }',
    variables: (input) => ({ body: input.body, project: projectHeader(input) }),
    response: (data: { openaiResponse: unknown }) => data.openaiResponse,
    sse: {
      when: (input) => (input.body as { stream?: unknown } | null)?.stream === true,
      subgraph: 'inference',
      subscription:
        'subscription ResponseEvents($body: JSONObject!, $project: String) { openaiResponseEvents(body: $body, project: $project) }',
      variables: (input) => ({ body: input.body, project: projectHeader(input) }),
      event: (data: { openaiResponseEvents: unknown }) => data.openaiResponseEvents,
      // OpenAI ends a Responses stream with response.completed, not [DONE]; a failure with an `error` event, numbered
      // like the others (the openai SDK throws on its `error`, the AI SDK reports it as an error part).
      errorEvent: (body, eventsSent) => ({ type: 'error', sequence_number: eventsSent, ...(body as object) }),
    },
  }),
  defineRoute({
    family: 'inference',
    method: 'POST',
    path: '/embeddings',
    summary: 'OpenAI embeddings, from catalog models that serve them',
    schema: { body: EmbeddingsRequestSchema },
    bodyValidation: 'operation',
    subgraph: 'inference',
    operation: 'mutation Embeddings($body: JSONObject!, $project: String) { openaiEmbeddings(body: $body, project: $project) }',
    variables: (input) => ({ body: input.body, project: projectHeader(input) }),
    response: (data: { openaiEmbeddings: unknown }) => data.openaiEmbeddings,
  }),
];

/**
 * An endpoint of OpenAI's API this server does not implement (POST /completions, /audio/*, /files, …): OpenAI's own
 * 404 shape, saying so and naming what is served — not a bare "No route", which clients report as "model not found".
 */
export const inferenceUnknownPaths: UnknownPathRule = {
  family: 'inference',
  message: (method, path) =>
    `${method} ${path} is not supported by this server (it serves ${inferenceRoutes.map((route) => `${route.method} ${route.path}`).join(', ')})`,
};
