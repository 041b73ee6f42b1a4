import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { connectDatabase, type DatabaseConnection } from '../../../platform/db/connection.js';
import { migrateSchema } from '../../../platform/db/migrate.js';
import {
  TRAINING_CHECKPOINT_SAVED_EVENT,
  TRAINING_RUN_FINISHED_EVENT,
  TRAINING_RUN_STARTED_EVENT,
  type TrainingCheckpointSavedPayload,
  type TrainingRunStartedPayload,
} from '../../../platform/events/contracts.js';
import { migrateEvents, PlatformEventStream, publishEvent } from '../../../platform/events/index.js';
import { createLogger } from '../../../platform/logger.js';
import type { RegistryDatabase } from '../db/database.js';
import { registryMigrations } from '../db/migrations/index.js';
import { TrainingRunRecorder } from '../training/training-run-recorder.js';

/**
 * Two processes of the platform on one database (replicas of the registry service, or a process per core) both run
 * the registry's training-run recorder. A checkpoint is an artifact version — not idempotent, and each one sends
 * automations' webhooks — so between them they must record each event once.
 */
let db: DatabaseConnection;
const streams: PlatformEventStream[] = [];
const recorders: TrainingRunRecorder[] = [];
const logger = createLogger({ level: 'silent' });

beforeAll(async () => {
  const url = await createTestDatabase();
  db = connectDatabase(url, { max: 10 });
  await migrateEvents(db.root);
  await migrateSchema(db.root, 'registry', registryMigrations);
  for (let process = 0; process < 2; process++) {
    const stream = new PlatformEventStream(db.root, url, logger);
    streams.push(stream);
    const recorder = new TrainingRunRecorder(db.forSchema<RegistryDatabase>('registry'), stream, logger);
    recorders.push(recorder);
    await recorder.start();
  }
});
afterAll(async () => {
  for (const recorder of recorders) await recorder.stop();
  for (const stream of streams) await stream.close();
  await db?.close();
});

const run: TrainingRunStartedPayload = {
  author_id: '00000000-0000-0000-0000-000000000001',
  model_id: 'model-1',
  model_name: 'agent-7',
  base_model: 'trellis-tiny',
  run_name: 'run-agent-7',
  job_id: 'job-1',
};

describe('the registry training-run recorder, run by two processes on one database', () => {
  it('records each checkpoint as one artifact version and the run once', async () => {
    const publish = (type: string, payload: object) =>
      publishEvent(db.root, { type, entity: 'team-a', project: 'proj', author: 'alice', payload: payload as Record<string, unknown> });
    await publish(TRAINING_RUN_STARTED_EVENT, run);
    for (let step = 1; step <= 5; step++) {
      const checkpoint: TrainingCheckpointSavedPayload = { ...run, step, metrics: { reward: step / 10 }, files: [{ path: 'adapter_config.json', content_base64: Buffer.from('{}').toString('base64') }] };
      await publish(TRAINING_CHECKPOINT_SAVED_EVENT, checkpoint);
    }
    await publish(TRAINING_RUN_FINISHED_EVENT, run);

    const registry = db.forSchema<RegistryDatabase>('registry');
    await expect
      .poll(async () => (await registry.selectFrom('runs').select('state').where('name', '=', run.run_name).execute()).map((row) => row.state), { timeout: 15_000 })
      .toContain('FINISHED');
    // Both consumers have seen every event by now (each follows the same stream); give a late duplicate a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const versions = await sql<{ n: number }>`select count(*)::int as n from registry.versions`.execute(db.root);
    expect(versions.rows[0]!.n).toBe(5);
    const runs = await registry.selectFrom('runs').select(['name', 'state']).execute();
    expect(runs).toEqual([{ name: run.run_name, state: 'FINISHED' }]);
    const metrics = await sql<{ n: number }>`select count(*)::int as n from registry.run_metrics`.execute(db.root);
    expect(metrics.rows[0]!.n).toBe(5);
  });
});
