import { Type } from '@sinclair/typebox';
import { INT4_MAX } from '../../platform/validation.js';
import {
  CheckpointDeleteBody,
  JobIdParams,
  ModelCreateBody,
  ModelIdParams,
  RlJobCreateBody,
  SftJobCreateBody,
  TrajectoryLogBody,
} from '../../subgraphs/training/training.schemas.js';
import { ChatCompletionRequestSchema } from '../../subgraphs/inference/chat/chat-request.schema.js';
import { defineRoute } from '../route.js';

/**
 * Family C (serverless training, the ART client's API) under /training, every path with its /v1 prefix.
 * Query strings arrive as text: the routes only check that numbers look like numbers; ranges and enums are
 * validated by the subgraph with the same schema GraphQL callers get (422 `{detail}` either way).
 */
const Digits = Type.String({ pattern: '^[0-9]+$' });
const PageQuery = Type.Object({ after: Type.Optional(Type.String()), limit: Type.Optional(Digits), order: Type.Optional(Type.String()) });
const EventsQuery = Type.Object({ after: Type.Optional(Type.String()), limit: Type.Optional(Digits) });
const intOrNull = (value: string | undefined) => (value === undefined ? null : Number(value));

const MODEL_FIELDS = 'id entity project name baseModel runId';
const JOB_FIELDS = 'id modelId kind status trainingStart trainingEnd errorMessage createdAt';

const toModel = (model: Record<string, any>) => ({
  id: model.id,
  entity: model.entity,
  project: model.project,
  name: model.name,
  base_model: model.baseModel,
  run_id: model.runId,
});

const toJob = (job: Record<string, any>) => ({
  id: job.id,
  model_id: job.modelId,
  kind: job.kind,
  status: job.status,
  training_start: job.trainingStart,
  training_end: job.trainingEnd,
  error_message: job.errorMessage,
  created_at: job.createdAt,
});

/** The list envelope of the hosted API (`object: "list"`, `first_id`, `last_id`, `has_more`). */
const toList = <T>(page: { data: T[]; firstId: string | null; lastId: string | null; hasMore: boolean }, item: (value: T) => unknown) => ({
  object: 'list',
  data: page.data.map(item),
  first_id: page.firstId,
  last_id: page.lastId,
  has_more: page.hasMore,
});

const chatCompletion = (path: string, summary: string) =>
  defineRoute({
    family: 'training',
    method: 'POST',
    path,
    summary,
    schema: { body: ChatCompletionRequestSchema },
    // Sampling is the hot path of an RL loop: executed on the training subgraph directly when it is in this process.
    subgraph: 'training',
    operation: 'mutation TrainingChatCompletion($request: JSONObject!) { createTrainingChatCompletion(request: $request) }',
    variables: ({ body }) => ({ request: body }),
    response: (data) => data.createTrainingChatCompletion,
    sse: {
      when: (input) => (input.body as { stream?: unknown } | null)?.stream === true,
      subgraph: 'training',
      subscription: 'subscription TrainingChatCompletionChunks($request: JSONObject!) { trainingChatCompletionChunks(request: $request) }',
      variables: ({ body }) => ({ request: body }),
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
    operation: 'mutation TrainingWorkLease($workerId: String!) { leaseTrainingWork(workerId: $workerId) }',
    variables: ({ body }) => ({ workerId: body.worker_id }),
    response: (data) => ({ job: data.leaseTrainingWork }),
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
    schema: { params: WorkerJobParams, body: Type.Object({ worker_id: Type.String({ minLength: 1 }), metrics: Type.Record(Type.String(), Type.Number()) }) },
    operation: 'mutation TrainingWorkStep($jobId: ID!, $workerId: String!, $metrics: JSONObject!) { reportTrainingStep(jobId: $jobId, workerId: $workerId, metrics: $metrics) }',
    variables: ({ params, body }) => ({ jobId: params.job_id, workerId: body.worker_id, metrics: body.metrics }),
    response: () => ({}),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/workers/jobs/:job_id/complete',
    summary: 'Remote trainer: upload the adapter files (base64 by file name) and the step they reached',
    schema: {
      params: WorkerJobParams,
      body: Type.Object({ worker_id: Type.String({ minLength: 1 }), step: Type.Integer({ minimum: 1, maximum: INT4_MAX }), files: Type.Record(Type.String(), Type.String()) }),
    },
    bodyLimit: 256 * 1024 * 1024,
    operation:
      'mutation TrainingWorkComplete($jobId: ID!, $workerId: String!, $step: Int!, $files: JSONObject!) { completeTrainingWork(jobId: $jobId, workerId: $workerId, step: $step, files: $files) }',
    variables: ({ params, body }) => ({ jobId: params.job_id, workerId: body.worker_id, step: body.step, files: body.files }),
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
    operation: `mutation TrainingModelCreate($entity: String!, $project: String!, $input: JSONObject!) {
      ensureProject(entity: $entity, name: $project) { name }
      createTrainingModel(input: $input) { ${MODEL_FIELDS} }
    }`,
    variables: ({ body, principal }) => ({
      entity: body.entity ?? principal!.defaultEntity,
      project: body.project,
      input: body,
    }),
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
    operation: `query TrainingCheckpoints($id: ID!, $after: String, $limit: Int, $order: String) {
      trainingModel(id: $id) { checkpoints(after: $after, limit: $limit, order: $order) { data { id step metrics } firstId lastId hasMore } }
    }`,
    variables: ({ params, query }) => ({
      id: params.model_id,
      after: query.after ?? null,
      limit: intOrNull(query.limit),
      order: query.order ?? null,
    }),
    response: (data) => toList(data.trainingModel.checkpoints, (checkpoint: any) => checkpoint),
  }),
  defineRoute({
    family: 'training',
    method: 'DELETE',
    path: '/v1/preview/models/:model_id/checkpoints',
    summary: 'Delete model checkpoints by step (missing steps are reported, the others deleted)',
    schema: { params: ModelIdParams, body: CheckpointDeleteBody },
    operation: `mutation TrainingCheckpointsDelete($id: ID!, $input: JSONObject!) {
      deleteTrainingCheckpoints(modelId: $id, input: $input) { deletedCount notFoundSteps }
    }`,
    variables: ({ params, body }) => ({ id: params.model_id, input: body }),
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
    operation: `mutation TrainingLog($id: ID!, $input: JSONObject!) { logTrajectories(modelId: $id, input: $input) }`,
    variables: ({ params, body }) => ({ id: params.model_id, input: body }),
    response: () => ({}),
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/preview/models/:model_id/training-jobs',
    summary: 'List the model\'s training jobs, newest first (Trellis addition)',
    schema: { params: ModelIdParams, querystring: Type.Object({ limit: Type.Optional(Digits) }) },
    operation: `query TrainingJobs($id: ID!, $limit: Int!) { trainingModel(id: $id) { jobs(limit: $limit) { ${JOB_FIELDS} } } }`,
    variables: ({ params, query }) => ({ id: params.model_id, limit: intOrNull(query.limit) ?? 20 }),
    response: (data) => {
      const jobs = data.trainingModel.jobs as Record<string, any>[];
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
    operation: `mutation TrainingRlJobCreate($input: JSONObject!) { createRlTrainingJob(input: $input) { id } }`,
    variables: ({ body }) => ({ input: body }),
    response: (data) => ({ id: data.createRlTrainingJob.id }),
  }),
  defineRoute({
    family: 'training',
    method: 'POST',
    path: '/v1/preview/sft-training-jobs',
    summary: 'Create a supervised fine-tuning job',
    schema: { body: SftJobCreateBody },
    operation: `mutation TrainingSftJobCreate($input: JSONObject!) { createSftTrainingJob(input: $input) { id } }`,
    variables: ({ body }) => ({ input: body }),
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
    operation: `query TrainingJobEvents($id: ID!, $after: String, $limit: Int) {
      trainingJob(id: $id) { events(after: $after, limit: $limit) { data { id type data } firstId lastId hasMore } }
    }`,
    variables: ({ params, query }) => ({ id: params.training_job_id, after: query.after ?? null, limit: intOrNull(query.limit) }),
    response: (data) => toList(data.trainingJob.events, (event: any) => event),
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
    operation: 'query TrainingHealth { trainingHealth }',
    variables: () => ({}),
    response: (data) => data.trainingHealth,
  }),
  defineRoute({
    family: 'training',
    method: 'GET',
    path: '/v1/system-check',
    summary: 'System check: api, database, job queue and workers, with durations; 503 when one fails',
    auth: 'none',
    operation: 'query TrainingSystemCheck { trainingSystemCheck }',
    variables: () => ({}),
    response: (data) => data.trainingSystemCheck,
    responseStatus: (data) => (data.trainingSystemCheck.success ? 200 : 503),
  }),
];
