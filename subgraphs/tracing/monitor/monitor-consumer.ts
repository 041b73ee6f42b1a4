import type { Kysely } from 'kysely';
import { TRACING_CALLS_ENDED_EVENT, type TracingCallsEndedPayload } from '../../../platform/events/contracts.js';
import { claimEventCursor, claimEvents, loadEventCursor } from '../../../platform/events/event-cursor.js';
import { PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { TracingDatabase } from '../db/database.js';
import { monitorOf } from './monitor-definition.js';
import type { ModelJudge } from './llm-judge.js';
import { recordScores, scoreCalls, type ScoredPair } from './monitor-scoring.js';
import { checkThresholds } from './monitor-threshold.js';
import type { MonitorDefinition } from './monitor-definition.js';
import { fieldsRead } from './monitor-fields.js';
import { monitorStore } from './monitor.store.js';

const CONSUMER = 'tracing-monitors';

/** The calls the events name, by project (`entity/project`). */
function callsOf(events: PlatformEvent[]): Map<string, Set<string>> {
  const idsByProject = new Map<string, Set<string>>();
  for (const event of events) {
    if (!event.project) continue;
    const projectId = `${event.entity}/${event.project}`;
    let ids = idsByProject.get(projectId);
    if (!ids) idsByProject.set(projectId, (ids = new Set()));
    for (const id of (event.payload as unknown as TracingCallsEndedPayload).call_ids ?? []) ids.add(id);
  }
  return idsByProject;
}

/**
 * Scores ended calls with their project's active monitors: consumes `tracing.calls_ended` events (a written batch's
 * ended calls of one monitored project each), scores the calls with the active monitors (scoreCalls), then, in one
 * transaction per batch of events, claims them (claimEvents: processes consuming at once apply each event once, the
 * cursor never moves back) and records results and score feedback (recordScores: once per monitor and call, whatever
 * is delivered again). A monitor paused or deleted before its event is applied scores nothing from it.
 */
export class MonitorConsumer extends PlatformEventConsumer {
  readonly name = CONSUMER;
  /** Each event names up to a written batch of calls (upsert_batch: hundreds): 20 events at most are scored together. */
  protected override readonly batchSize = 20;
  /** Ingestion publishes an event per write; gathered for this long, several are scored in one transaction. */
  protected override readonly gatherMs = 100;

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    stream: PlatformEventStream,
    logger: Logger,
    private readonly judge: ModelJudge | undefined,
  ) {
    super(stream, new Set([TRACING_CALLS_ENDED_EVENT]), logger);
  }

  protected loadCursor(): Promise<string | undefined> {
    return loadEventCursor(this.db, CONSUMER);
  }

  protected apply(event: PlatformEvent): Promise<void> {
    return this.applyBatch([event]);
  }

  /**
   * Scores first, outside the transaction (a judge takes a model's time; the cursor's row lock is not held meanwhile),
   * then claims the events and records, in one transaction. Events another process applied meanwhile record
   * nothing new: their pairs are already there.
   */
  protected override async applyBatch(events: PlatformEvent[]): Promise<void> {
    const { pairs, monitors } = await this.score(events);
    await this.db.transaction().execute(async (trx) => {
      const fresh = await claimEvents(trx, CONSUMER, events);
      if (fresh.length === 0) return;
      // Only the calls of the events this transaction claimed: pairs of events another process applied meanwhile
      // were scored here with the monitors as they are now (one resumed since would score calls ended while paused).
      const claimed = callsOf(fresh);
      await recordScores(trx, monitors, pairs.filter((pair) => claimed.get(pair.projectId)?.has(pair.result.call_id)));
      await checkThresholds(trx, monitors);
    });
  }

  /** The events' calls fetched in one query, whatever their projects, then scored by their projects' monitors. */
  private async score(events: PlatformEvent[]): Promise<{ pairs: ScoredPair[]; monitors: MonitorDefinition[] }> {
    const idsByProject = callsOf(events);
    const monitors = (await monitorStore.active(this.db, [...idsByProject.keys()])).map(monitorOf);
    const watched = new Set(monitors.map((monitor) => monitor.projectId));
    const keys = [...idsByProject].filter(([projectId]) => watched.has(projectId)).flatMap(([projectId, ids]) => [...ids].map((id) => ({ project_id: projectId, id })));
    const pairs = await scoreCalls(this.db, monitors, await monitorStore.endedCalls(this.db, keys, fieldsRead(monitors)), this.judge);
    return { pairs, monitors };
  }

  protected async passOver(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute((trx) => claimEventCursor(trx, CONSUMER, event.cursor));
  }
}
