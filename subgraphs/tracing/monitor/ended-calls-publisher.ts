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

/** An ended call with the user who wrote its end (its event's author). */
export interface AuthoredEnd extends EndedCall {
  author: string;
}

/**
 * How ended calls reach the monitors: the call writer hands it the calls whose end it writes, and it publishes one
 * `tracing.calls_ended` event per project that has an active monitor (and per writer), in the transaction that writes
 * the ends (so the event exists exactly when the ends do). A write with no monitored project costs a lookup in memory
 * and nothing else. Single `/call/end` requests reach it a flush at a time (CallEndBatcher), so that an event names
 * the calls of many requests.
 */
export class EndedCallsPublisher {
  constructor(private readonly monitored: MonitoredProjects) {}

  /** Whether the project has an active monitor (as this process knows). */
  monitors(projectId: string): boolean {
    return this.monitored.has(projectId);
  }

  /** Publishes the monitored projects' calls among `ends`, in `trx` (the transaction writing them). */
  async publish(trx: Transaction<TracingDatabase> | Kysely<TracingDatabase>, ends: readonly EndedCall[], author: string): Promise<void> {
    await this.publishAuthored(trx, this.monitoredAmong(ends.map((end) => ({ project_id: end.project_id, id: end.id, author }))));
  }

  /** Those of `ends` whose project has an active monitor (as this process knows). */
  monitoredAmong<T extends EndedCall>(ends: readonly T[]): T[] {
    return ends.filter((end) => this.monitored.has(end.project_id));
  }

  /**
   * Publishes `ends` (calls of monitored projects, each with its writer) in `trx`: one event per project and author,
   * each call named once.
   */
  async publishAuthored(trx: Transaction<TracingDatabase> | Kysely<TracingDatabase>, ends: readonly AuthoredEnd[]): Promise<void> {
    // By project, then author: a batch's calls share both, and a key string built per call (JSON of the pair) was
    // most of this method's time under upsert_batch.
    const byProject = new Map<string, Map<string, Set<string>>>();
    for (const end of ends) {
      let authors = byProject.get(end.project_id);
      if (!authors) byProject.set(end.project_id, (authors = new Map()));
      let ids = authors.get(end.author);
      if (!ids) authors.set(end.author, (ids = new Set()));
      ids.add(end.id);
    }
    const groups = [...byProject].flatMap(([projectId, authors]) => [...authors].map(([author, ids]) => ({ projectId, author, ids })));
    const events: NewPlatformEvent[] = [];
    for (const { projectId, author, ids } of groups) {
      const project = parseProjectId(projectId);
      if (!project) continue;
      const payload: TracingCallsEndedPayload = { call_ids: [...ids] };
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
