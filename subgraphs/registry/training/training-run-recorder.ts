import type { Kysely } from 'kysely';
import type { Principal } from '../../../platform/auth/principal.js';
import {
  TRAINING_CHECKPOINT_ALIASES_REMOVED_EVENT,
  TRAINING_CHECKPOINT_PROMOTED_EVENT,
  TRAINING_CHECKPOINT_SAVED_EVENT,
  TRAINING_CHECKPOINTS_DELETED_EVENT,
  TRAINING_RUN_FAILED_EVENT,
  TRAINING_RUN_FINISHED_EVENT,
  TRAINING_RUN_KILLED_EVENT,
  TRAINING_RUN_STARTED_EVENT,
  type TrainingCheckpointAliasesRemovedPayload,
  type TrainingCheckpointPromotedPayload,
  type TrainingCheckpointSavedPayload,
  type TrainingCheckpointsDeletedPayload,
  type TrainingRunStartedPayload,
} from '../../../platform/events/contracts.js';
import { PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import { ArtifactService } from '../artifact/artifact.service.js';
import type { RegistryDatabase } from '../db/database.js';
import { RunService } from '../run/run.service.js';
import { RegistryStore, type RunRow } from '../store.js';
import { claimEventCursor, loadEventCursor } from '../../../platform/events/event-cursor.js';

const CONSUMER = 'training-runs';
const TYPES = new Set([
  TRAINING_RUN_STARTED_EVENT,
  TRAINING_CHECKPOINT_SAVED_EVENT,
  TRAINING_RUN_FINISHED_EVENT,
  TRAINING_RUN_FAILED_EVENT,
  TRAINING_RUN_KILLED_EVENT,
  TRAINING_CHECKPOINT_PROMOTED_EVENT,
  TRAINING_CHECKPOINTS_DELETED_EVENT,
  TRAINING_CHECKPOINT_ALIASES_REMOVED_EVENT,
]);

/**
 * Records Family C's training runs and checkpoints in the registry: a run per model (named by the model's run id;
 * RUNNING while a job trains, FINISHED, FAILED or KILLED (cancelled) after), each checkpoint as an artifact version of the collection
 * named after the model (type `model`, aliases `step{N}` and `latest`, the step's metrics as metadata and run
 * metrics), promotions as the promoted alias on the checkpoint's version, and deleted checkpoints (or models) by deleting their versions. Consumes the platform events after its stored cursor and writes each event's changes with the new
 * cursor in one transaction, through the registry's own services — so they publish the events automations watch.
 * The transaction claims the event first: several registry processes on one database record each event once.
 * The submitter was authorized for the model's project when the job was created.
 */
export class TrainingRunRecorder extends PlatformEventConsumer {
  readonly name = 'registry-training-runs';

  constructor(
    private readonly db: Kysely<RegistryDatabase>,
    stream: PlatformEventStream,
    logger: Logger,
  ) {
    super(stream, TYPES, logger);
  }

  protected loadCursor(): Promise<string | undefined> {
    return loadEventCursor(this.db, CONSUMER);
  }

  /** E.g. a model name the registry cannot use as a collection name. */
  protected async passOver(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute((trx) => claimEventCursor(trx, CONSUMER, event.cursor));
  }

  protected async apply(event: PlatformEvent): Promise<void> {
    const payload = event.payload as unknown as TrainingRunStartedPayload;
    const entity = event.entity;
    const project = event.project!;
    const author = submitter(payload.author_id, event.author, entity);
    await this.db.transaction().execute(async (trx) => {
      // Claimed first: an artifact version is not idempotent, so a process that finds the event applied skips it.
      if (!(await claimEventCursor(trx, CONSUMER, event.cursor))) return;
      const store = new RegistryStore(trx);
      if (event.type === TRAINING_CHECKPOINT_PROMOTED_EVENT) {
        await promote(store, author, entity, project, event.payload as unknown as TrainingCheckpointPromotedPayload);
        return;
      }
      if (event.type === TRAINING_CHECKPOINTS_DELETED_EVENT) {
        await deleteVersions(store, author, entity, project, event.payload as unknown as TrainingCheckpointsDeletedPayload);
        return;
      }
      if (event.type === TRAINING_CHECKPOINT_ALIASES_REMOVED_EVENT) {
        await removeAliases(store, author, entity, project, event.payload as unknown as TrainingCheckpointAliasesRemovedPayload);
        return;
      }
      const runs = new RunService(store);
      const run = await this.ensureRun(store, runs, author, entity, project, payload.run_name);
      switch (event.type) {
        case TRAINING_RUN_STARTED_EVENT:
          await runs.setState(author, run.id, 'RUNNING');
          break;
        case TRAINING_CHECKPOINT_SAVED_EVENT: {
          const checkpoint = event.payload as unknown as TrainingCheckpointSavedPayload;
          await new ArtifactService(store).createVersion(author, {
            entity,
            project,
            collection: checkpoint.model_name,
            type: 'model',
            metadata: { step: checkpoint.step, metrics: checkpoint.metrics, base_model: checkpoint.base_model, training_job_id: checkpoint.job_id },
            files: checkpoint.files.map((file) => ({ path: file.path, contentBase64: file.content_base64 })),
            aliases: [`step${checkpoint.step}`, 'latest'],
          });
          const points = Object.entries(checkpoint.metrics).map(([name, value]) => ({ name, value, step: checkpoint.step }));
          if (points.length > 0) await runs.logMetrics(author, run.id, points);
          break;
        }
        case TRAINING_RUN_FINISHED_EVENT:
          await runs.setState(author, run.id, 'FINISHED');
          break;
        case TRAINING_RUN_FAILED_EVENT:
          await runs.setState(author, run.id, 'FAILED');
          break;
        case TRAINING_RUN_KILLED_EVENT:
          await runs.setState(author, run.id, 'KILLED');
          break;
      }
    });
  }

  private async ensureRun(store: RegistryStore, runs: RunService, author: Principal, entity: string, project: string, name: string): Promise<RunRow> {
    return (await store.runByName(entity, project, name)) ?? (await runs.create(author, { entity, project, name }));
  }
}

/**
 * A promotion moves the same alias onto the checkpoint's artifact version (collection = the model's name, found by
 * its `step<N>` alias), which publishes ADD_ARTIFACT_ALIAS when the alias moved. A checkpoint the registry never
 * recorded (its version deleted) is passed over.
 */
async function promote(store: RegistryStore, author: Principal, entity: string, project: string, promoted: TrainingCheckpointPromotedPayload): Promise<void> {
  const artifacts = new ArtifactService(store);
  const found = await artifacts.versionByName(author, { entity, project, collection: promoted.model_name, version: `step${promoted.step}` });
  if (!found) return;
  await artifacts.addAlias(author, found.version.id, promoted.alias, null);
}

/**
 * Deleted checkpoints: their artifact versions (found by their `step<N>` alias) are deleted with every alias on them,
 * so nothing serves them by any name; `latest` falls back to the newest version left. A version the registry never
 * recorded is passed over.
 */
async function deleteVersions(store: RegistryStore, author: Principal, entity: string, project: string, deleted: TrainingCheckpointsDeletedPayload): Promise<void> {
  const artifacts = new ArtifactService(store);
  for (const step of deleted.steps) {
    const found = await artifacts.versionByName(author, { entity, project, collection: deleted.model_name, version: `step${step}` });
    if (found) await store.deleteVersion(found.version.id);
  }
}

/**
 * Events published before TRAINING_CHECKPOINTS_DELETED_EVENT. Deleted checkpoints took their named aliases with them: each alias leaves the checkpoint's artifact version (found
 * by its `step<N>` alias) if it still points there — a registry user may have moved it since, and that move stands.
 * The version itself stays (the registry keeps what was recorded); only the name that served it goes.
 */
async function removeAliases(store: RegistryStore, author: Principal, entity: string, project: string, removed: TrainingCheckpointAliasesRemovedPayload): Promise<void> {
  const artifacts = new ArtifactService(store);
  for (const { alias, step } of removed.aliases) {
    const found = await artifacts.versionByName(author, { entity, project, collection: removed.model_name, version: `step${step}` });
    if (found) await store.removeAliasFrom(found.collection.id, alias, found.version.id);
  }
}

/** The job's submitter, acting within the model's entity only (the training API authorized them for it). */
function submitter(userId: string, username: string, entity: string): Principal {
  return {
    userId,
    username,
    isAdmin: false,
    apiKeyId: '',
    defaultEntity: entity,
    teams: { [entity]: 'MEMBER' },
    projectAdmin: [],
    registryAdmin: [],
  };
}
