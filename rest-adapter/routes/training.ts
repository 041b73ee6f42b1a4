import { Type } from '@sinclair/typebox';
import {
  CheckpointDeleteBody,
  JobIdParams,
  ModelCreateBody,
  ModelIdParams,
  RlJobCreateBody,
  SftJobCreateBody,
  TrajectoryLogBody,
  WorkerCompleteBody,
  WorkerStepBody,
} from '../../subgraphs/training/training.schemas.js';
import {
  AT_BODY,
  RlTrainingJobCreateInput,
  SftTrainingJobCreateInput,
  TrainingCheckpointDeleteInput,
  TrainingModelCreateInput,
  TrainingStepReportInput,
  TrainingWorkResultInput,
  TrajectoryLogInput,
} from '../../subgraphs/training/training.inputs.js';
import { AT_REQUEST, TrainingChatCompletionInput } from '../../subgraphs/training/chat/chat-completion.input.js';
import { ChatCompletionRequestSchema } from '../../subgraphs/inference/chat/chat-request.schema.js';
import { defineRoute } from '../route.js';
import {
  COMPLETION_SELECTION,
  JOB_FIELDS,
  MODEL_FIELDS,
  SYSTEM_CHECK_SELECTION,
  WORK_SELECTION,
  cursorOfId,
  pagingLocation,
  toJob,
  toList,
  toModel,
  toOpenAICompletion,
  toSystemCheck,
  toWork,
} from './training-shapes.js';

/**
 * Family C (serverless training, the ART client's API) under /training, every path with its /v1 prefix. Each
 * route runs the training graph's operation with the typed input generated from its body schema
 * (`XInput.fromWire(body)`); problems the operation finds are reported back at the body's locations.
 * Query strings arrive as text: the routes check that numbers look like numbers (a page size of at least 1) and
 * that `order` is asc or desc; the connection enforces the largest page (422 at `limit`).
 */
const Digits = Type.String({ pattern: '^[0-9]+$' });
const PageSize = Type.String({ pattern: '^0*[1-9][0-9]*$' });
const Order = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
const PageQuery = Type.Object({ after: Type.Optional(Type.String()), limit: Type.Optional(PageSize), order: Type.Optional(Order) });
const EventsQuery = Type.Object({ after: Type.Optional(Type.String()), limit: Type.Optional(PageSize) });
const intOrNull = (value: string | undefined) => (value === undefined ? null : Number(value));

const chatCompletion = (path: string, summary: string) =>
  defineRoute({
    family: 'training',
    method: 'POST',
    path,
    summary,
    schema: { body: ChatCompletionRequestSchema },
    // Sampling is the hot path of an RL loop: executed on the training subgraph directly when it is in this process.
    subgraph: 'training',
    operation: `mutation TrainingChatCompletion($request: ChatCompletionRequestInput!) { createTrainingChatCompletion(request: $request) { ${COMPLETION_SELECTION} } }`,
    variables: ({ body }) => ({ request: TrainingChatCompletionInput.fromWire(body) }),
    issueLocation: (loc) => TrainingChatCompletionInput.wireLocation(loc, AT_REQUEST),
    response: (data) => toOpenAICompletion(data.createTrainingChatCompletion),
    sse: {
      when: (input) => (input.body as { stream?: unknown } | null)?.stream === true,
      subgraph: 'training',
      subscription:
        'subscription TrainingChatCompletionChunks($request: ChatCompletionRequestInput!) { trainingChatCompletionChunks(request: $request) }',
      variables: ({ body }) => ({ request: TrainingChatCompletionInput.fromWire(body) }),
      event: (data: { trainingChatCompletionChunks: unknown }) => data.trainingChatCompletionChunks,
      done: '[DONE]',
    },
  });

/** The remote trainer protocol (docs/training.md), for trainer machines holding a platform operator's key. */
const WorkerBody = Type.Object({ worker_id: Type.String({ minLength: 1, maxLength: 200 }) });
const WorkerJobParams = Type.Object({ job_id: Type.String() });
const workerRoutes = [
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/workers/lease',
    summary: 'Remote trainer: lease the oldest pending assignment ({job: null} when there is none)',
    schema: { body: WorkerBody },
    operation: `mutation TrainingWorkLease($workerId: String!) { leaseTrainingWork(workerId: $workerId) { ${WORK_SELECTION} } }`,
    variables: ({ body }) => ({ workerId: body.worker_id }),
    response: (data) => ({ job: toWork(data.leaseTrainingWork) }),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/workers/jobs/:job_id/heartbeat',
    summary: 'Remote trainer: keep the lease alive; status LEASED = go on, anything else = stop',
    schema: { params: WorkerJobParams, body: WorkerBody },
    operation: 'mutation TrainingWorkHeartbeat($jobId: ID!, $workerId: String!) { heartbeatTrainingWork(jobId: $jobId, workerId: $workerId) }',
    variables: ({ params, body }) => ({ jobId: params.job_id, workerId: body.worker_id }),
    response: (data) => ({ status: data.heartbeatTrainingWork }),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/workers/jobs/:job_id/steps',
    summary: 'Remote trainer: report one optimizer step (numeric metrics)',
    schema: { params: WorkerJobParams, body: WorkerStepBody },
    operation: 'mutation TrainingWorkStep($jobId: ID!, $input: TrainingStepReportInput!) { reportTrainingStep(jobId: $jobId, input: $input) }',
    variables: ({ params, body }) => ({ jobId: params.job_id, input: TrainingStepReportInput.fromWire(body) }),
    issueLocation: (loc) => TrainingStepReportInput.wireLocation(loc, AT_BODY),
    response: () => ({}),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/workers/jobs/:job_id/complete',
    summary: 'Remote trainer: upload the adapter files (base64 by file name) and the step they reached',
    schema: { params: WorkerJobParams, body: WorkerCompleteBody },
    bodyLimit: 256 * 1024 * 1024,
    operation: 'mutation TrainingWorkComplete($jobId: ID!, $input: TrainingWorkResultInput!) { completeTrainingWork(jobId: $jobId, input: $input) }',
    // The body's files map (name → base64) is the input's list of files.
    variables: ({ params, body }) => ({
      jobId: params.job_id,
      input: TrainingWorkResultInput.fromWire({
        worker_id: body.worker_id,
        step: body.step,
        files: Object.entries(body.files as Record<string, string>).map(([name, content_base64]) => ({ name, content_base64 })),
      }),
    }),
    // A problem with one file is a problem with the body's files map.
    issueLocation: (loc) => {
      const wire = TrainingWorkResultInput.wireLocation(loc, AT_BODY);
      return wire[1] === 'files' ? wire.slice(0, 2) : wire;
    },
    response: () => ({}),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/workers/jobs/:job_id/fail',
    summary: 'Remote trainer: fail the assignment (the message becomes the job\'s error_message)',
    schema: { params: WorkerJobParams, body: Type.Object({ worker_id: Type.String({ minLength: 1 }), error_message: Type.String({ minLength: 1, maxLength: 10_000 }) }) },
    operation:
      'mutation TrainingWorkFail($jobId: ID!, $workerId: String!, $message: String!) { failTrainingWork(jobId: $jobId, workerId: $workerId, errorMessage: $message) }',
    variables: ({ params, body }) => ({ jobId: params.job_id, workerId: body.worker_id, message: body.error_message }),
    response: () => ({}),
  }),
];

export const trainingRoutes = [
  ...workerRoutes,
  chatCompletion('/v1/chat/completions', 'Chat completion from a base model or a checkpoint (wandb-artifact:///entity/project/name:step<N>|latest)'),
  chatCompletion('/v1/chat/completions/', 'Chat completion (trailing-slash form of the same endpoint)'),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/preview/models',
    summary: 'Create a model (return_existing returns the model of that name if it exists)',
    schema: { body: ModelCreateBody },
    // The project is created on first use (or the caller gets a 403) before the model, as for traces.
    operation: `mutation TrainingModelCreate($entity: String!, $project: String!, $input: TrainingModelCreateInput!) {
      ensureProject(entity: $entity, name: $project) { name }
      createTrainingModel(input: $input) { ${MODEL_FIELDS} }
    }`,
    variables: ({ body, principal }) => ({
      entity: body.entity ?? principal!.defaultEntity,
      project: body.project,
      input: TrainingModelCreateInput.fromWire(body),
    }),
    issueLocation: (loc) => TrainingModelCreateInput.wireLocation(loc, AT_BODY),
    response: (data) => toModel(data.createTrainingModel),
  }),
  defineRoute({
    family: 'training',
    method: 'DELETE',
    path: '/v1/preview/models/:model_id',
    summary: 'Delete a model with its checkpoints',
    schema: { params: ModelIdParams },
    operation: `mutation TrainingModelDelete($id: ID!) { deleteTrainingModel(id: $id) { modelId deletedCheckpoints deletedRun } }`,
    variables: ({ params }) => ({ id: params.model_id }),
    response: (data) => ({
      model_id: data.deleteTrainingModel.modelId,
      deleted_checkpoints: data.deleteTrainingModel.deletedCheckpoints,
      deleted_run: data.deleteTrainingModel.deletedRun,
    }),
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/preview/models/:model_id/checkpoints',
    summary: 'List model checkpoints (after, limit 1-100, order asc|desc)',
    schema: { params: ModelIdParams, querystring: PageQuery },
    operation: `query TrainingCheckpoints($id: ID!, $after: String, $first: Int, $order: TrainingCheckpointOrder) {
      trainingModel(id: $id) { checkpoints(after: $after, first: $first, order: $order) { nodes { id step metrics } pageInfo { hasNextPage } } }
    }`,
    variables: ({ params, query }) => ({
      id: params.model_id,
      after: cursorOfId(query.after),
      first: intOrNull(query.limit),
      order: query.order ? query.order.toUpperCase() : null,
    }),
    issueLocation: pagingLocation,
    response: (data) => toList(data.trainingModel.checkpoints, ({ id, step, metrics }) => ({ id, step, metrics })),
  }),
  defineRoute({
    family: 'training',
    method: 'DELETE',
    path: '/v1/preview/models/:model_id/checkpoints',
    summary: 'Delete model checkpoints by step (missing steps are reported, the others deleted)',
    schema: { params: ModelIdParams, body: CheckpointDeleteBody },
    operation: `mutation TrainingCheckpointsDelete($id: ID!, $input: TrainingCheckpointDeleteInput!) {
      deleteTrainingCheckpoints(modelId: $id, input: $input) { deletedCount notFoundSteps }
    }`,
    variables: ({ params, body }) => ({ id: params.model_id, input: TrainingCheckpointDeleteInput.fromWire(body) }),
    issueLocation: (loc) => TrainingCheckpointDeleteInput.wireLocation(loc, AT_BODY),
    response: (data) => ({
      deleted_count: data.deleteTrainingCheckpoints.deletedCount,
      not_found_steps: data.deleteTrainingCheckpoints.notFoundSteps,
    }),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/preview/models/:model_id/log',
    summary: 'Log trajectory groups for a split',
    schema: { params: ModelIdParams, body: TrajectoryLogBody },
    bodyLimit: 64 * 1024 * 1024,
    operation: `mutation TrainingLog($id: ID!, $input: TrajectoryLogInput!) { logTrajectories(modelId: $id, input: $input) }`,
    variables: ({ params, body }) => ({ id: params.model_id, input: TrajectoryLogInput.fromWire(body) }),
    issueLocation: (loc) => TrajectoryLogInput.wireLocation(loc, AT_BODY),
    response: () => ({}),
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/preview/models/:model_id/training-jobs',
    summary: 'List the model\'s training jobs, newest first (Trellis addition)',
    schema: { params: ModelIdParams, querystring: Type.Object({ limit: Type.Optional(Digits) }) },
    operation: `query TrainingJobs($id: ID!, $first: Int!) { trainingModel(id: $id) { jobs(first: $first) { nodes { ${JOB_FIELDS} } } } }`,
    // This list has always been one page of 1–100 jobs (out-of-range limits are clamped, has_more is false).
    variables: ({ params, query }) => ({ id: params.model_id, first: Math.min(Math.max(intOrNull(query.limit) ?? 20, 1), 100) }),
    response: (data) => {
      const jobs = data.trainingModel.jobs.nodes as Record<string, any>[];
      return { object: 'list', data: jobs.map(toJob), first_id: jobs[0]?.id ?? null, last_id: jobs.at(-1)?.id ?? null, has_more: false };
    },
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/preview/training-jobs',
    summary: 'Create a reinforcement-learning job',
    schema: { body: RlJobCreateBody },
    bodyLimit: 64 * 1024 * 1024,
    operation: `mutation TrainingRlJobCreate($input: RlTrainingJobCreateInput!) { createRlTrainingJob(input: $input) { id } }`,
    variables: ({ body }) => ({ input: RlTrainingJobCreateInput.fromWire(body) }),
    issueLocation: (loc) => RlTrainingJobCreateInput.wireLocation(loc, AT_BODY),
    response: (data) => ({ id: data.createRlTrainingJob.id }),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/preview/sft-training-jobs',
    summary: 'Create a supervised fine-tuning job',
    schema: { body: SftJobCreateBody },
    operation: `mutation TrainingSftJobCreate($input: SftTrainingJobCreateInput!) { createSftTrainingJob(input: $input) { id } }`,
    variables: ({ body }) => ({ input: SftTrainingJobCreateInput.fromWire(body) }),
    issueLocation: (loc) => SftTrainingJobCreateInput.wireLocation(loc, AT_BODY),
    response: (data) => ({ id: data.createSftTrainingJob.id }),
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/preview/training-jobs/:training_job_id',
    summary: 'Get a training job',
    schema: { params: JobIdParams },
    operation: `query TrainingJob($id: ID!) { trainingJob(id: $id) { ${JOB_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.training_job_id }),
    response: (data) => toJob(data.trainingJob),
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/preview/training-jobs/:training_job_id/events',
    summary: 'Get training job events (after = id of the last event seen)',
    schema: { params: JobIdParams, querystring: EventsQuery },
    operation: `query TrainingJobEvents($id: ID!, $after: String, $first: Int) {
      trainingJob(id: $id) { events(after: $after, first: $first) { nodes { id type data } pageInfo { hasNextPage } } }
    }`,
    variables: ({ params, query }) => ({ id: params.training_job_id, after: cursorOfId(query.after), first: intOrNull(query.limit) }),
    issueLocation: pagingLocation,
    response: (data) => toList(data.trainingJob.events, ({ id, type, data: eventData }) => ({ id, type, data: eventData })),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/preview/training-jobs/:training_job_id/cancel',
    summary: 'Cancel a queued or running training job (Trellis addition)',
    schema: { params: JobIdParams },
    operation: `mutation TrainingJobCancel($id: ID!) { cancelTrainingJob(id: $id) { ${JOB_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.training_job_id }),
    response: (data) => toJob(data.cancelTrainingJob),
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/health',
    summary: 'Health check',
    auth: 'none',
    schema: { response: Type.Object({ status: Type.String() }) },
    // Executed on the training subgraph directly: the probe measures the API, not the gateway's planner.
    subgraph: 'training',
    operation: 'query TrainingHealth { trainingHealth { status } }',
    variables: () => ({}),
    response: (data) => ({ status: data.trainingHealth.status }),
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/system-check',
    summary: 'System check: api, database, job queue and workers, with durations; 503 when one fails',
    auth: 'none',
    operation: `query TrainingSystemCheck { trainingSystemCheck { ${SYSTEM_CHECK_SELECTION} } }`,
    variables: () => ({}),
    response: (data) => toSystemCheck(data.trainingSystemCheck),
    responseStatus: (data) => (data.trainingSystemCheck.success ? 200 : 503),
  }),
];
