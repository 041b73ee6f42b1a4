import type { Kysely, Transaction } from 'kysely';
import { TRACING_CALLS_ENDED_EVENT, type TracingCallsEndedPayload } from '../../../platform/events/contracts.js';
import { publishEvents, type NewPlatformEvent } from '../../../platform/events/index.js';
import type { TracingDatabase } from '../db/database.js';
import { parseProjectId } from '../refs.js';
import type { MonitoredProjects } from './monitored-projects.js';

/** A call whose end is being written. */
export interface EndedCall {
  project_id: string;
  id: string;
}

/**
 * How ended calls reach the monitors: the call writer hands it the calls whose end it writes, and it publishes one
 * `tracing.calls_ended` event per project that has an active monitor, in the transaction that writes the ends (so the
 * event exists exactly when the ends do). A write with no monitored project costs a lookup in memory and nothing else.
 */
export class EndedCallsPublisher {
  constructor(private readonly monitored: MonitoredProjects) {}

  /** Whether the project has an active monitor (as this process knows). */
  monitors(projectId: string): boolean {
    return this.monitored.has(projectId);
  }

  /** Publishes the monitored projects' calls among `ends`, in `trx` (the transaction writing them). */
  async publish(trx: Transaction<TracingDatabase> | Kysely<TracingDatabase>, ends: readonly EndedCall[], author: string): Promise<void> {
    const byProject = new Map<string, string[]>();
    for (const end of ends) {
      if (!this.monitored.has(end.project_id)) continue;
      let ids = byProject.get(end.project_id);
      if (!ids) byProject.set(end.project_id, (ids = []));
      ids.push(end.id);
    }
    if (byProject.size === 0) return;
    const events: NewPlatformEvent[] = [];
    for (const [projectId, ids] of byProject) {
      const project = parseProjectId(projectId);
      if (!project) continue;
      const payload: TracingCallsEndedPayload = { call_ids: [...new Set(ids)] };
      events.push({ type: TRACING_CALLS_ENDED_EVENT, entity: project.entity, project: project.project, author, payload: payload as unknown as Record<string, unknown> });
    }
    await publishEvents(trx, events);
  }

  /**
   * Runs `write` (one statement writing the ends) on its own when no project of `ends` is monitored, else in a
   * transaction with the event.
   */
  async writeEnds<T>(db: Kysely<TracingDatabase>, ends: readonly EndedCall[], author: string, write: (db: Kysely<TracingDatabase>) => Promise<T>): Promise<T> {
    if (!ends.some((end) => this.monitored.has(end.project_id))) return write(db);
    return db.transaction().execute(async (trx) => {
      const result = await write(trx);
      await this.publish(trx, ends, author);
      return result;
    });
  }
}
