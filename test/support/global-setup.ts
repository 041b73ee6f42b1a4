import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import 'vitest';
import { startEmbeddedPostgres } from '../../platform/db/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Server-level URL; each test file creates its own database on it (see test/support/database.ts). */
    postgresUrl: string;
  }
}

/** One PostgreSQL server for the whole run: `DATABASE_URL` when set, otherwise a fresh embedded cluster. */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('postgresUrl', process.env.DATABASE_URL);
    return;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-test-pg-'));
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), ephemeral: true });
  project.provide('postgresUrl', server.url);
  return async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
