import { typedInput } from '../../platform/graphql/typed-input.js';
import {
  CheckpointDeleteBody,
  CheckpointPromoteBody,
  ModelCreateBody,
  RlJobCreateBody,
  SftJobCreateBody,
  SftJobFromTraceDatasetBody,
  TraceDatasetSftExportBody,
  TrajectoryLogBody,
  WorkerResultInput,
  WorkerStepBody,
} from './training.schemas.js';

/**
 * The GraphQL inputs of the training operations, generated from the REST request schemas (one contract): the REST
 * routes pass `XInput.fromWire(body)`, the resolvers hand `XInput.handle(input, AT_BODY, …)` to the service, which
 * validates the wire value with the same schema.
 */
export const TrainingModelCreateInput = typedInput(ModelCreateBody);
export const TrainingCheckpointDeleteInput = typedInput(CheckpointDeleteBody);
export const TrainingCheckpointPromoteInput = typedInput(CheckpointPromoteBody);
export const TrajectoryLogInput = typedInput(TrajectoryLogBody);
export const RlTrainingJobCreateInput = typedInput(RlJobCreateBody);
export const SftTrainingJobCreateInput = typedInput(SftJobCreateBody);
export const TraceDatasetSftExportInput = typedInput(TraceDatasetSftExportBody);
export const SftTrainingJobFromDatasetInput = typedInput(SftJobFromTraceDatasetBody);
export const TrainingStepReportInput = typedInput(WorkerStepBody);
export const TrainingWorkResultInput = typedInput(WorkerResultInput);

/** The whole REST body is the `input` argument. */
export const AT_BODY = { arg: 'input', wire: ['body'] };
