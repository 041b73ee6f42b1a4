import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectDatabase, createDatabase } from '../../platform/db/connection.js';
import { migrateEvents } from '../../platform/events/index.js';
import { createLogger } from '../../platform/logger.js';
import { SUBGRAPHS } from '../../subgraphs/index.js';
import { migrateJobQueue } from '../../subgraphs/training/job/job-queue.js';

/** Migrates every schema the platform migrates at start-up: each subgraph's, the event log and the job queue. */
export async function migrateEverything(url: string): Promise<void> {
  const db = connectDatabase(url, { max: 2 });
  try {
    for (const module of SUBGRAPHS) await module.migrate(db);
    await migrateEvents(db.root);
    await migrateJobQueue(db.pool, createLogger({ level: 'silent' }));
  } finally {
    await db.close();
  }
}

/**
 * A database with every schema the platform migrates, made once per test run: each test file's database is a copy of
 * it (CREATE DATABASE … TEMPLATE), so a platform start in a test does not run the migrations again (about 0.5–0.8 s
 * of each of the suite's ~150 starts). Tests of the migrations themselves ask for an empty database instead.
 */
export async function createTemplateDatabase(serverUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `trellis_template_${randomBytes(4).toString('hex')}`;
  await migrateEverything(await createDatabase(serverUrl, name));
  return {
    name,
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await client.end();
      }
    },
  };
}
