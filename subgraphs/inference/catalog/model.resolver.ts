import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePlatformAdmin, requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import { OpenAICompatibleBackend } from '../backends/openai-compatible/openai-compatible-backend.js';
import type { InferenceServices } from '../services.js';
import { InferenceDeployment, InferenceModel, toInferenceDeployments, toInferenceModel } from './model.type.js';

@Resolver(() => InferenceModel)
export class ModelResolver {
  constructor(private readonly services: InferenceServices) {}

  @Query(() => [InferenceModel], { description: 'The models the caller may use' })
  inferenceModels(@Ctx() context: GraphQLContext): InferenceModel[] {
    return this.services.catalog.visibleTo(requirePrincipal(context)).map(toInferenceModel);
  }

  @FieldResolver(() => [InferenceDeployment], { description: 'Platform administrators only' })
  deployments(@Root() model: InferenceModel, @Ctx() context: GraphQLContext): InferenceDeployment[] {
    requirePlatformAdmin(context);
    const backend = model.entry.backend;
    return toInferenceDeployments(model.entry, backend instanceof OpenAICompatibleBackend ? backend.deployments : []);
  }

  @Mutation(() => InferenceModel, {
    description:
      'Platform administrators: add or replace a catalog model. `definition` is a model as in TRELLIS_MODELS_FILE: ' +
      '{id, backend, root?, owned_by?, teams?, deployments?: [{base_url, api_key? | api_key_env?, model?, timeout_ms?}]}',
  })
  async registerInferenceModel(
    @Arg('definition', () => JSONObjectScalar) definition: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceModel> {
    requirePlatformAdmin(context);
    return toInferenceModel(await this.services.catalog.register(definition));
  }

  @Mutation(() => Boolean, { description: 'Platform administrators: remove a catalog model' })
  deleteInferenceModel(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    requirePlatformAdmin(context);
    return this.services.catalog.remove(id);
  }
}
