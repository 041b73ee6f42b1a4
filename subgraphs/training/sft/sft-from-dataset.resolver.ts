import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { TrainingJob, toTrainingJob } from '../job/job.type.js';
import type { TrainingServices } from '../services.js';
import { AT_BODY, SftTrainingJobFromDatasetInput, TraceDatasetSftExportInput } from '../training.inputs.js';
import { SftJobFromTraceDatasetBody } from '../training.schemas.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { SftDatasetExport, toSftDatasetExport } from './sft-export.type.js';

/** Fine-tuning from Weave Datasets (e.g. built from traces): export to train.jsonl, and an SFT job in one step. */
@Resolver()
export class SftFromDatasetResolver {
  constructor(private readonly services: TrainingServices) {}

  @Mutation(() => SftDatasetExport, {
    description:
      "Exports a Weave Dataset version as SFT chat JSONL ({\"messages\": [...]} per row: the prompt column as the user's turn, the completion column — default expected — as the assistant's) into the next version of a registry artifact with train.jsonl, read and written through the graph as the caller",
  })
  async exportTraceDatasetToSft(
    @Arg('input', () => TraceDatasetSftExportInput.argType(), { description: 'The dataset version, its columns and the artifact' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<SftDatasetExport> {
    const caller = { principal: requirePrincipal(context), requestId: context.requestId, signal: context.signal };
    return toSftDatasetExport(await TraceDatasetSftExportInput.handle(input, AT_BODY, (wire) => this.services.datasetExport.export(caller, wire)));
  }

  @Mutation(() => TrainingJob, {
    description:
      'Starts an SFT job on a model from a Weave Dataset version: exports it as train.jsonl (as exportTraceDatasetToSft) and submits the job with that artifact as its training_data_url. The model\'s team members only',
  })
  async createSftTrainingJobFromDataset(
    @Arg('input', () => SftTrainingJobFromDatasetInput.argType(), { description: 'The model, the dataset version and the settings' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingJob> {
    const caller = { principal: requirePrincipal(context), requestId: context.requestId, signal: context.signal };
    const job = await SftTrainingJobFromDatasetInput.handle(input, AT_BODY, async (wire) => {
      const request = validateOrThrow(SftJobFromTraceDatasetBody, wire);
      // The model first: a caller who may not train it creates no artifact.
      await this.services.training.model(caller.principal, request.model_id);
      const made = await this.services.datasetExport.export(caller, request.dataset, ['body', 'dataset']);
      return this.services.training.createSftJob(caller, { model_id: request.model_id, training_data_url: made.trainingDataUrl, config: request.config });
    });
    return toTrainingJob(job);
  }
}
