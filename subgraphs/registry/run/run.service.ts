import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { isTeamMember, type Principal } from '../../../platform/auth/principal.js';
import { ForbiddenError, NotFoundError } from '../../../platform/errors.js';
import { publishEvent } from '../../../platform/events/index.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { RunState } from '../db/database.js';
import type { RunMetricEventPayload, RunPayload, RunStateEventPayload } from '../events/registry-events.js';
import { CreateRunSchema, LogMetricsSchema } from '../registry.schemas.js';
import type { RegistryStore, RunRow } from '../store.js';

export type CreateRun = Static<typeof CreateRunSchema>;
export type MetricPoint = Static<typeof LogMetricsSchema>[number];

/** Runs and their metric history; state changes and logged metrics publish RUN_STATE / RUN_METRIC events. */
export class RunService {
  constructor(private readonly store: RegistryStore) {}

  async create(principal: Principal, input: CreateRun): Promise<RunRow> {
    validateOrThrow(CreateRunSchema, input, 'input');
    if (!isTeamMember(principal, input.entity)) throw new ForbiddenError(`You are not a member of entity "${input.entity}"`);
    return this.store.transaction(async (store) => {
      const run = await store.insertRun({
        entity: input.entity,
        project: input.project,
        name: input.name ?? `run-${randomBytes(4).toString('hex')}`,
        author: principal.username,
      });
      await publishRunState(store, principal, run, null);
      return run;
    });
  }

  async setState(principal: Principal, runId: string, state: RunState): Promise<RunRow> {
    return this.store.transaction(async (store) => {
      const run = await this.writableRun(store, principal, runId);
      if (run.state === state) return run;
      const updated = await store.setRunState(run.id, state);
      await publishRunState(store, principal, updated, run.state);
      return updated;
    });
  }

  /** Appends metric values (step defaults to the next one per metric); one RUN_METRIC event per value. */
  async logMetrics(principal: Principal, runId: string, points: MetricPoint[]): Promise<RunRow> {
    validateOrThrow(LogMetricsSchema, points, 'metrics');
    return this.store.transaction(async (store) => {
      const run = await this.writableRun(store, principal, runId);
      for (const point of points) {
        const step = point.step ?? (await store.nextMetricStep(run.id, point.name));
        if (!(await store.insertMetric({ runId: run.id, name: point.name, step, value: point.value }))) continue;
        const payload: RunMetricEventPayload = { run: runPayload(run), metric: { name: point.name, value: point.value, step } };
        await publishEvent(store.db, {
          type: 'RUN_METRIC',
          entity: run.entity,
          project: run.project,
          author: principal.username,
          payload: payload as unknown as Record<string, unknown>,
        });
      }
      return run;
    });
  }

  async get(principal: Principal, runId: string): Promise<RunRow | null> {
    const run = /^[0-9a-f-]{36}$/i.test(runId) ? await this.store.run(runId) : undefined;
    return run && isTeamMember(principal, run.entity) ? run : null;
  }

  /** A project's runs newest first: `limit` of them, before the keyset position `before` when given. */
  list(principal: Principal, entity: string, project: string, limit: number, before?: { createdMicros: string; id: string } | null) {
    if (!isTeamMember(principal, entity)) return Promise.resolve([]);
    return this.store.runsOf(entity, project, limit, before);
  }

  metricHistory(runId: string, name: string) {
    return this.store.metricHistory(runId, name);
  }

  private async writableRun(store: RegistryStore, principal: Principal, runId: string): Promise<RunRow> {
    const run = /^[0-9a-f-]{36}$/i.test(runId) ? await store.run(runId, { forUpdate: true }) : undefined;
    if (!run || !isTeamMember(principal, run.entity)) throw new NotFoundError(`Run ${runId} not found`);
    return run;
  }
}

function runPayload(run: RunRow): RunPayload {
  return { id: run.id, name: run.name, author: run.author, state: run.state };
}

async function publishRunState(store: RegistryStore, principal: Principal, run: RunRow, previousState: string | null): Promise<void> {
  const payload: RunStateEventPayload = { run: runPayload(run), state: run.state, previousState };
  await publishEvent(store.db, {
    type: 'RUN_STATE',
    entity: run.entity,
    project: run.project,
    author: principal.username,
    payload: payload as unknown as Record<string, unknown>,
  });
}
