import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BadRequestError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';

/**
 * The OpenAI Responses request (POST /inference/v1/responses) as far as this server answers it: a conversation in,
 * one text message out. It is served by the chat pipeline (responses-translation.ts), so only what maps onto a chat
 * completion is accepted; everything that would need more (tools, stored responses, conversations, reasoning
 * controls, structured output) is refused with a 400 naming the parameter — never silently ignored. Hints that
 * change nothing about the answer (metadata, service_tier, prompt_cache_key, safety_identifier, truncation
 * "disabled", parallel_tool_calls) are accepted. Unknown parameters are allowed, as on chat completions.
 */
const nullable = <T extends TSchema>(schema: T, options: Record<string, unknown> = {}) => Type.Union([schema, Type.Null()], options);

export const RESPONSE_INPUT_ROLES = ['user', 'assistant', 'system', 'developer'] as const;

const InputContentPart = Type.Object(
  {
    type: Type.String({ description: '`input_text` (or `output_text` in an assistant turn)' }),
    text: Type.Optional(Type.String({ description: 'The text of the part' })),
  },
  { additionalProperties: true, description: 'One content part of an input message' },
);

const InputMessage = Type.Object(
  {
    type: Type.Optional(Type.Literal('message', { description: 'Always `message` when given' })),
    role: Type.Union(
      RESPONSE_INPUT_ROLES.map((role) => Type.Literal(role)),
      { description: 'Who wrote the message (`developer` is treated as `system`)' },
    ),
    content: Type.Union([Type.String(), Type.Array(InputContentPart)], { description: 'The text, or a list of `input_text` parts' }),
  },
  { additionalProperties: true, description: 'One message of the conversation' },
);

export const ResponsesRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 512, description: 'The catalog model to ask' }),
    input: Type.Union([Type.String(), Type.Array(InputMessage, { minItems: 1 })], {
      description: 'The user message as a string, or the conversation as a list of messages, oldest first',
    }),
    instructions: Type.Optional(nullable(Type.String(), { description: 'A system message put before the input' })),
    max_output_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1 }), { description: 'Most tokens to generate' })),
    temperature: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 2 }), { description: 'Sampling temperature, 0 to 2' })),
    top_p: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 1 }), { description: 'Nucleus sampling mass, 0 to 1' })),
    stream: Type.Optional(nullable(Type.Boolean(), { description: 'Answer with `response.*` server-sent events' })),
    user: Type.Optional(nullable(Type.String({ maxLength: 512 }), { description: 'Your identifier of the end user (recorded in usage)' })),
    metadata: Type.Optional(nullable(Type.Record(Type.String(), Type.String()), { description: 'Echoed back on the response' })),
  },
  { additionalProperties: true, description: 'An OpenAI Responses API request (the body of POST /inference/v1/responses)' },
);

export type ResponsesRequest = Static<typeof ResponsesRequestSchema>;
export type ResponsesInputMessage = Static<typeof InputMessage>;

/** Responses features the chat pipeline cannot honour, and why (the 400's message). */
const UNSUPPORTED: Record<string, { unless: (value: unknown) => boolean; why: string }> = {
  tools: { unless: (value) => Array.isArray(value) && value.length === 0, why: 'tools are not supported' },
  tool_choice: { unless: (value) => value === 'none' || value === 'auto', why: 'tool_choice is not supported (no tools)' },
  previous_response_id: { unless: () => false, why: 'responses are not stored, so previous_response_id cannot be continued: send the whole conversation as input' },
  conversation: { unless: () => false, why: 'conversations are not stored: send the whole conversation as input' },
  store: { unless: (value) => value === false, why: 'responses are not stored: set store to false (or leave it out)' },
  background: { unless: (value) => value === false, why: 'background responses are not supported' },
  prompt: { unless: () => false, why: 'stored prompt templates are not supported' },
  reasoning: { unless: () => false, why: 'reasoning options are not supported' },
  include: { unless: (value) => Array.isArray(value) && value.length === 0, why: 'include is not supported' },
  text: { unless: (value) => isPlainTextFormat(value), why: 'only plain text output is supported (text.format.type "text")' },
  max_tool_calls: { unless: () => false, why: 'tools are not supported' },
  top_logprobs: { unless: (value) => value === 0, why: 'top_logprobs is not supported' },
  truncation: { unless: (value) => value === 'disabled', why: 'only truncation "disabled" is supported' },
  context_management: { unless: () => false, why: 'context_management is not supported' },
};

function isPlainTextFormat(value: unknown): boolean {
  const format = (value as { format?: { type?: unknown } } | null)?.format;
  return typeof value === 'object' && value !== null && (format === undefined || format === null || format.type === 'text');
}

/**
 * Validates a Responses request: first the features this server refuses (a clear 400 naming the parameter), then
 * the schema (400 naming the field). `null` counts as "not set", as it does for OpenAI.
 */
export function validateResponsesRequest(raw: unknown): ResponsesRequest {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    for (const [name, value] of Object.entries(raw)) {
      const rule = UNSUPPORTED[name];
      if (!rule || value === null || value === undefined || rule.unless(value)) continue;
      throw new BadRequestError(`This server's Responses API does not support '${name}': ${rule.why}`, { param: name });
    }
    const input = (raw as { input?: unknown }).input;
    if (Array.isArray(input)) {
      input.forEach((item, index) => {
        const type = (item as { type?: unknown } | null)?.type;
        if (typeof type === 'string' && type !== 'message') {
          throw new BadRequestError(`This server's Responses API accepts only messages as input items (input.${index} is '${type}')`, {
            param: `input.${index}.type`,
          });
        }
      });
    }
  }
  return validateOrThrow(ResponsesRequestSchema, raw, 'body');
}
