import { Arg, Ctx, Mutation, Resolver, Root, Subscription } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { InferenceServices } from '../services.js';
import { toChatRequest, toResponse } from './responses-translation.js';

const PROJECT_DESCRIPTION = 'Usage attribution, "<team>/<project>" (default: your default entity, project "inference")';
const WIRE_BODY_DESCRIPTION =
  'The OpenAI Responses request body exactly as an OpenAI client sends it (snake_case); answered by the chat pipeline, so features beyond a text conversation are refused';

/**
 * The OpenAI Responses API (what the Vercel AI SDK's default OpenAI provider calls), in its wire form only — what
 * POST /inference/v1/responses runs. It is a second wire form of chat completions: the request is translated into a
 * chat request and served by the chat service (validated, limited, traced and counted as chat), the answer translated
 * back (responses-translation.ts). GraphQL clients use createChatCompletion / chatCompletionChunks.
 */
@Resolver()
export class ResponsesResolver {
  constructor(private readonly services: InferenceServices) {}

  @Mutation(() => JSONObjectScalar, {
    description:
      'The OpenAI Responses API: the request body in, the Response object out (what POST /inference/v1/responses runs), ' +
      'answered by the chat pipeline. GraphQL clients use createChatCompletion.',
  })
  async openaiResponse(
    @Arg('body', () => JSONObjectScalar, { description: WIRE_BODY_DESCRIPTION }) body: Record<string, unknown>,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) project: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Record<string, unknown>> {
    const principal = requirePrincipal(context);
    const completion = await this.services.chat.complete(
      body,
      { principal, project, requestId: context.requestId, signal: context.signal },
      toChatRequest,
    );
    return toResponse(body, completion);
  }

  /** Bound by the inference subgraph (index.ts): the chat stream translated into `response.*` events. */
  @Subscription(() => JSONObjectScalar, {
    description:
      'The OpenAI Responses API streamed: its `response.*` events verbatim (what POST /inference/v1/responses serves as ' +
      'server-sent events with `stream: true`). GraphQL clients use chatCompletionChunks.',
    subscribe: () => {
      throw new Error('openaiResponseEvents is bound by the inference subgraph');
    },
  })
  openaiResponseEvents(
    @Root() event: Record<string, unknown>,
    @Arg('body', () => JSONObjectScalar, { description: WIRE_BODY_DESCRIPTION }) _body: Record<string, unknown>,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) _project: string | null,
  ): Record<string, unknown> {
    return event;
  }
}
