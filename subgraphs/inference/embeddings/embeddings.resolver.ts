import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { InferenceServices } from '../services.js';
import type { EmbeddingsResponse } from './embeddings.js';
import { EMBEDDINGS_REQUEST_AT, EmbeddingsRequestInput } from './embeddings.inputs.js';
import { EmbeddingsObject, toEmbeddingsObject } from './embeddings.type.js';

const PROJECT_DESCRIPTION = 'Usage attribution, "<team>/<project>" (default: your default entity, project "inference")';

/**
 * Embeddings, in two forms over one service, as chat completions:
 * - typed (`createEmbeddings`): what GraphQL clients use; the input is generated from the REST request schema;
 * - the OpenAI wire protocol (`openaiEmbeddings`): what POST /inference/v1/embeddings runs — the body and the answer
 *   verbatim (a malformed body still reaches the service, to be answered in OpenAI's shape and recorded as usage; an
 *   upstream's answer keeps every field it sends).
 */
@Resolver()
export class EmbeddingsResolver {
  constructor(private readonly services: InferenceServices) {}

  @Mutation(() => EmbeddingsObject, { description: 'Embeddings of texts or token ids by a catalog model that serves them' })
  async createEmbeddings(
    @Arg('request', () => EmbeddingsRequestInput.argType(), { description: 'The model and the inputs to embed' }) request: unknown,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) project: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<EmbeddingsObject> {
    const principal = requirePrincipal(context);
    const response = await EmbeddingsRequestInput.handle(request, EMBEDDINGS_REQUEST_AT, (wire) =>
      this.services.embeddings.create(wire, { principal, project, requestId: context.requestId, signal: context.signal }),
    );
    return toEmbeddingsObject(response);
  }

  @Mutation(() => JSONObjectScalar, {
    description:
      'The OpenAI wire protocol of embeddings: the OpenAI request body in, the OpenAI response body out, verbatim (what ' +
      'POST /inference/v1/embeddings runs). GraphQL clients use createEmbeddings.',
  })
  openaiEmbeddings(
    @Arg('body', () => JSONObjectScalar, {
      description: 'The OpenAI embeddings request body exactly as an OpenAI client sends it (model, input, encoding_format, dimensions, user)',
    })
    body: Record<string, unknown>,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) project: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<EmbeddingsResponse> {
    const principal = requirePrincipal(context);
    return this.services.embeddings.create(body, { principal, project, requestId: context.requestId, signal: context.signal });
  }
}
