/**
 * The source of a small dashboard client written against the code generated from documents/*.graphql
 * (`./graphql.js` next to it in the test's temp dir, hence a string here: it does not compile inside the repo).
 * It reads result fields the way client code does today, so a schema change that renames, retypes or removes
 * them — or makes a non-null field nullable — breaks this file's type check. `@ts-expect-error` lines check that
 * the generated types are precise (not `any`): unselected fields and nullable objects must be errors.
 */
export const CLIENT_USAGE_SOURCE = String.raw`
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  AutomationDeliveriesDocument,
  CallDetailDocument,
  ChatCompletionDocument,
  CreateApiKeyDocument,
  DeliveryDetailDocument,
  DeliveryUpdatesDocument,
  FeedbackOverTimeDocument,
  HomeDocument,
  ProjectCallsDocument,
  ProjectInferenceUsageDocument,
  ProjectOverviewDocument,
  ProjectRunsDocument,
  ProjectTrainingDocument,
  TeamAutomationsDocument,
  TeamMembersAndProjectsDocument,
  TeamOverviewDocument,
  TrainingJobProgressDocument,
  ProjectInferenceUsageSeriesDocument,
  RecentPlatformEventsDocument,
  TeamDeliveryLogDocument,
  TrainingModelOverviewDocument,
  ViewerDocument,
  type CallRowFragment,
  type ChatMessageRole,
  type DeliveryStatus,
  type InferenceUsageGroupBy,
  type ProjectCallsQuery,
  type ProjectCallsQueryVariables,
  type TrainingJobStatus,
} from './graphql.js';

/** What urql, Apollo Client or graphql-request offer for typed documents: variables in, typed result out. */
declare function request<TResult, TVariables>(document: TypedDocumentNode<TResult, TVariables>, variables: TVariables): Promise<TResult>;
declare function subscribe<TResult, TVariables>(
  document: TypedDocumentNode<TResult, TVariables>,
  variables: TVariables,
  onNext: (result: TResult) => void,
): () => void;

const where = { entity: 'trellis', project: 'default' };

export async function callTable(after: string | null): Promise<{ rows: string[]; total: number; next: string | null }> {
  const variables: ProjectCallsQueryVariables = {
    ...where,
    filter: { traceRootsOnly: true, opNames: ['weave:///trellis/default/op/predict:*'] },
    sortBy: [{ field: 'started_at', direction: 'DESC' }],
    first: 50,
    after,
  };
  const result: ProjectCallsQuery = await request(ProjectCallsDocument, variables);
  const calls = result.project?.calls;
  const rows = (calls?.nodes ?? []).map((call: CallRowFragment) => {
    const latency: number | null | undefined = call.latencyMs;
    const started: string | null | undefined = call.startedAt;
    return (call.displayName ?? call.opName ?? call.id) + ' ' + call.status + ' ' + String(latency ?? '-') + ' ' + (started ?? '');
  });
  // @ts-expect-error project is null when it does not exist or is not readable
  result.project.callCount;
  // @ts-expect-error inputs is not selected by ProjectCalls
  calls?.nodes[0]?.inputs;
  const next: string | null = calls?.pageInfo.hasNextPage ? (calls.pageInfo.endCursor ?? null) : null;
  return { rows, total: result.project?.callCount ?? 0, next };
}

export async function callTree(id: string): Promise<string[]> {
  const { project } = await request(CallDetailDocument, { ...where, id });
  const call = project?.call;
  if (!call) return [];
  const lines = [call.parent ? 'parent: ' + (call.parent.opName ?? call.parent.id) : 'root'];
  for (const child of call.children.nodes) {
    lines.push('  ' + child.id + ' ' + child.status + (child.children.nodes.length > 0 ? ' (has children)' : ''));
  }
  for (const feedback of call.feedback) lines.push(feedback.feedbackType + ' by ' + (feedback.creator ?? 'unknown'));
  const inputs: unknown = call.inputs;
  return inputs === undefined ? lines : lines.concat(JSON.stringify(inputs));
}

export async function feedbackSeries(afterMs: number, beforeMs: number): Promise<number[]> {
  const { project } = await request(FeedbackOverTimeDocument, { ...where, afterMs, beforeMs, groupBy: null });
  return (project?.feedbackAggregate.buckets ?? []).map((bucket) => bucket.scoredCount / Math.max(bucket.totalCount, 1));
}

export async function tokensByModel(from: string): Promise<Map<string, number>> {
  const groupBy: InferenceUsageGroupBy[] = ['MODEL'];
  const { project } = await request(ProjectInferenceUsageDocument, { ...where, groupBy, from, to: null });
  const totals = new Map<string, number>();
  for (const bucket of project?.inferenceUsage ?? []) {
    const model = bucket.model ?? 'unknown';
    totals.set(model, (totals.get(model) ?? 0) + bucket.totalTokens);
  }
  const slowest: number = Math.max(0, ...(project?.inferenceUsageRecords.nodes ?? []).map((record) => record.latencyMs));
  totals.set('slowest request (ms)', slowest);
  const more: boolean = project?.inferenceUsageRecords.pageInfo.hasNextPage ?? false;
  totals.set('more records', more ? 1 : 0);
  return totals;
}

/** A chart's series: requests per model per hour. */
export async function requestsPerHour(from: string, to: string): Promise<Map<string, [string, number][]>> {
  const { project } = await request(ProjectInferenceUsageSeriesDocument, { ...where, from, to, bucketSeconds: 3600 });
  const series = new Map<string, [string, number][]>();
  for (const bucket of project?.inferenceUsageSeries ?? []) {
    const start: string | null | undefined = bucket.period;
    const points = series.get(bucket.model ?? '?') ?? [];
    points.push([start ?? '', bucket.requests - bucket.errors]);
    series.set(bucket.model ?? '?', points);
  }
  return series;
}

export async function complete(prompt: string): Promise<string | null> {
  const role: ChatMessageRole = 'USER';
  const { createChatCompletion } = await request(ChatCompletionDocument, {
    project: 'trellis/default',
    request: { model: 'trellis-tiny', messages: [{ role, content: prompt }], temperature: 0.2, maxTokens: 32 },
  });
  const tokens: number | undefined = createChatCompletion.usage?.totalTokens;
  const calls = createChatCompletion.choices[0]?.message.toolCalls.map((call) => call.function?.name ?? '?') ?? [];
  // @ts-expect-error content is a string or null, not unknown JSON
  const notText: number = createChatCompletion.choices[0]?.message.content;
  void notText;
  return (createChatCompletion.choices[0]?.message.content ?? calls.join(',')) + (tokens === undefined ? '' : ' (' + tokens + ' tokens)');
}

export async function trainingProgress(modelId: string, jobId: string): Promise<string> {
  const { trainingModel } = await request(TrainingModelOverviewDocument, { id: modelId, checkpointsAfter: null });
  const latest = trainingModel.checkpoints.nodes[0];
  const step: number | undefined = latest?.step;
  const aliases: string[] = latest?.aliases ?? [];
  const loss = latest?.metrics['loss'];
  const { trainingJob } = await request(TrainingJobProgressDocument, { id: jobId, after: null });
  const status: TrainingJobStatus = trainingJob.status;
  const done = status === 'SUCCEEDED' || status === 'FAILED' || status === 'CANCELLED';
  const events = trainingJob.events.nodes.map((event) => event.type + '@' + event.createdAt);
  const more: boolean = trainingJob.events.pageInfo.hasNextPage;
  // A loss curve: one point per optimizer step (null where the trainer reported no loss).
  const curve: [number, number | null | undefined][] = trainingJob.metrics.map((point) => [point.step, point.loss]);
  return [trainingModel.name, trainingModel.baseModel, String(step), aliases.join(','), String(loss), String(done), String(more), String(curve.length), ...events].join(' ');
}

export async function projectTraining(): Promise<string[]> {
  const { project } = await request(ProjectTrainingDocument, { ...where, status: 'RUNNING', jobsAfter: null });
  if (!project) return [];
  const models = project.trainingModels.nodes.map((model) => model.name + ' on ' + model.baseModel);
  const jobs = project.trainingJobs.edges.map(({ node }) => node.kind + ' ' + node.status + ' of ' + (node.model?.name ?? '(deleted)'));
  return [...models, ...jobs, String(project.trainingJobs.pageInfo.hasNextPage)];
}

export async function deliveries(team: string): Promise<string[]> {
  const { automations } = await request(TeamAutomationsDocument, { entity: team, after: null });
  const lines: string[] = [];
  for (const automation of automations.nodes) {
    const webhook = automation.webhook;
    const threshold: number | null | undefined = automation.event.threshold;
    lines.push(automation.name + ' → ' + (webhook ? webhook.endpointUrl : 'deleted webhook') + (automation.enabled ? '' : ' (paused)') + ' ' + String(threshold ?? ''));
    const { automation: detail } = await request(AutomationDeliveriesDocument, { id: automation.id, first: 10, after: null });
    for (const delivery of detail?.deliveries.nodes ?? []) {
      const status: DeliveryStatus = delivery.status;
      const { delivery: full } = await request(DeliveryDetailDocument, { id: delivery.id });
      const lastAttempt = full?.attempts[full.attempts.length - 1];
      lines.push('  ' + status + ' ' + delivery.attemptCount + ' ' + String(lastAttempt?.responseStatus ?? lastAttempt?.error ?? ''));
    }
  }
  return lines;
}

export async function deliveryLog(team: string): Promise<string[]> {
  const status: DeliveryStatus = 'FAILED';
  const { deliveries } = await request(TeamDeliveryLogDocument, { team, status, automationId: null, after: null });
  const lines = deliveries.nodes.map((delivery) =>
    delivery.id + ' ' + delivery.attempts.map((attempt) => String(attempt.responseStatus ?? attempt.error) + ' in ' + attempt.durationMs + ' ms').join(', '),
  );
  const { recentPlatformEvents } = await request(RecentPlatformEventsDocument, { team, types: null, after: null });
  return lines.concat(recentPlatformEvents.nodes.map((event) => event.type + ' by ' + event.author + ' at ' + event.createdAt));
}

export function watchDeliveries(team: string, onFailure: (id: string, error: string | null) => void): () => void {
  return subscribe(DeliveryUpdatesDocument, { team }, ({ deliveryUpdates }) => {
    if (deliveryUpdates.status === 'FAILED') onFailure(deliveryUpdates.id, deliveryUpdates.lastError ?? null);
  });
}

export async function accountPage(): Promise<string> {
  const { viewer } = await request(ViewerDocument, {});
  if (!viewer) return 'signed out';
  const teams = viewer.teams.map((membership) => membership.team + (membership.role === 'ADMIN' ? ' (admin)' : ''));
  const { createApiKey } = await request(CreateApiKeyDocument, { name: 'dashboard' });
  const secretShownOnce: string = createApiKey.key;
  const { team } = await request(TeamMembersAndProjectsDocument, { team: viewer.defaultEntity?.name ?? 'trellis' });
  const projects = team?.projects.map((project) => project.fullName) ?? [];
  return [viewer.username, ...teams, secretShownOnce.slice(0, 4), ...projects].join(', ');
}

export async function overview(): Promise<string[]> {
  const home = await request(HomeDocument, {});
  const { project } = await request(ProjectOverviewDocument, { ...where, since: null });
  if (!project) return ['no such project'];
  const lines = [
    project.fullName + ' of ' + project.team.name + ' (' + project.team.webhookCount + ' webhooks)',
    'calls: ' + project.callCount + ' (' + project.rootCallCount + ' traces)',
    'inference requests: ' + project.inferenceRequestCount,
    'trainable models: ' + project.trainingModelCount + ', runs: ' + project.runCount,
    ...project.recentCalls.nodes.map((call) => (call.displayName ?? call.opName ?? call.id) + ' ' + call.status),
    ...project.inferenceUsage.map((bucket) => (bucket.model ?? '?') + ': ' + bucket.requests + ' requests, p50 ' + bucket.latencyP50Ms + ' ms'),
    'models: ' + home.inferenceModels.map((model) => model.id).join(' '),
    'training: ' + home.trainingHealth.status,
  ];
  const { team, automations, webhooks } = await request(TeamOverviewDocument, { team: project.entity });
  for (const teamProject of team?.projects ?? []) lines.push(teamProject.name + ': ' + teamProject.callCount + ' calls, ' + teamProject.trainingModelCount + ' models');
  lines.push(automations.nodes.filter((automation) => automation.enabled).length + ' active automations, ' + webhooks.filter((webhook) => webhook.disabled).length + ' disabled webhooks');
  const { project: runs } = await request(ProjectRunsDocument, { ...where, after: null });
  lines.push(...(runs?.runs.nodes ?? []).filter((run) => run.state === 'RUNNING').map((run) => run.name + ' by ' + run.author));
  return lines;
}
`;
