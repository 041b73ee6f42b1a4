import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePlatformAdmin, requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { DEFINITION_AT, InferenceModelDefinitionInput } from './model.inputs.js';
import { OpenAICompatibleBackend } from '../backends/openai-compatible/openai-compatible-backend.js';
import type { InferenceServices } from '../services.js';
import { parsePromotedCheckpointName } from '../checkpoints/promoted-checkpoint-name.js';
import { InferenceDeployment, InferenceModel, servedCheckpointModel, toInferenceDeployments, toInferenceModel } from './model.type.js';

@Resolver(() => InferenceModel)
export class ModelResolver {
  constructor(private readonly services: InferenceServices) {}

  @Query(() => [InferenceModel], {
    description: "The models the caller may use: the catalog's, then the promoted checkpoints of the caller's teams (`{entity}/{project}/{model}:{alias}`, newest first)",
  })
  async inferenceModels(@Ctx() context: GraphQLContext): Promise<InferenceModel[]> {
    const principal = requirePrincipal(context);
    const catalog = this.services.catalog.visibleTo(principal).map(toInferenceModel);
    // The registry is another subgraph (another process in a split topology): while it cannot answer, the catalog's
    // models are still listed (and still served), and the log says why the checkpoints are missing.
    const checkpoints = await this.services.checkpoints.listed(principal, context.requestId).catch((error: unknown) => {
      context.logger.warn({ err: error }, 'promoted checkpoints left out of the model list: the registry did not answer');
      return [];
    });
    return [...catalog, ...checkpoints.map((checkpoint) => servedCheckpointModel(checkpoint, checkpoint.id.split('/')[0]!))];
  }

  @Query(() => InferenceModel, {
    description:
      'One model the caller may use (also at GET /inference/v1/models/{id}); a model they may not use is NOT_FOUND, like one that does not exist',
  })
  async inferenceModel(@Arg('id', () => String, { description: 'The model id' }) id: string, @Ctx() context: GraphQLContext): Promise<InferenceModel> {
    const principal = requirePrincipal(context);
    // As chat completions resolve `model`: the catalog first, then a checkpoint's registry name.
    const checkpoint = this.services.catalog.find(id) ? null : parsePromotedCheckpointName(id);
    if (checkpoint) return servedCheckpointModel(await this.services.checkpoints.describe(checkpoint, principal, context.requestId), checkpoint.entity);
    return toInferenceModel(this.services.catalog.resolve(id, principal));
  }

  @FieldResolver(() => [InferenceDeployment], {
    description: "The servers that answer for the model and their health in this process (openai-compatible models; platform administrators only)",
  })
  deployments(@Root() model: InferenceModel, @Ctx() context: GraphQLContext): InferenceDeployment[] {
    requirePlatformAdmin(context);
    if (!model.entry) return []; // a checkpoint: the embedded runtime answers, no upstream server
    const backend = model.entry.backend;
    return toInferenceDeployments(model.entry, backend instanceof OpenAICompatibleBackend ? backend.deployments : []);
  }

  @Mutation(() => InferenceModel, { description: 'Platform administrators: add a catalog model, or replace the one with the same id' })
  async registerInferenceModel(
    @Arg('definition', () => InferenceModelDefinitionInput.argType(), { description: 'The model, as in TRELLIS_MODELS_FILE' }) definition: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceModel> {
    requirePlatformAdmin(context);
    return toInferenceModel(await InferenceModelDefinitionInput.handle(definition, DEFINITION_AT, (wire) => this.services.catalog.register(wire)));
  }

  @Mutation(() => Boolean, { description: 'Platform administrators: remove a catalog model' })
  deleteInferenceModel(@Arg('id', () => String, { description: 'The model id' }) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    requirePlatformAdmin(context);
    return this.services.catalog.remove(id);
  }
}
