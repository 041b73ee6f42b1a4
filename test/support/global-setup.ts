import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import 'vitest';
import { startEmbeddedPostgres } from '../../platform/db/embedded-postgres.js';
import { compileSources } from './compiled-sources.js';
import { createTemplateDatabase } from './template-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Server-level URL; each test file creates its own database on it (see test/support/database.ts). */
    postgresUrl: string;
    /** The migrated database test databases are copies of (test/support/template-database.ts). */
    templateDatabase: string;
    /** The repository transpiled to JavaScript once for this run, for the OS processes tests start (spawnEntry). */
    compiledSourcesDir: string;
  }
}

/**
 * One PostgreSQL server for the whole run (`DATABASE_URL` when set, otherwise a fresh embedded cluster) with the
 * migrated template database, and the repository's JavaScript for the processes tests start.
 */
export default async function setup(project: TestProject) {
  const compiledSourcesDir = await compileSources(path.resolve(import.meta.dirname, '../..'));
  project.provide('compiledSourcesDir', compiledSourcesDir);
  const removeCompiledSources = () => rm(compiledSourcesDir, { recursive: true, force: true });
  if (process.env.DATABASE_URL) {
    const template = await createTemplateDatabase(process.env.DATABASE_URL);
    project.provide('postgresUrl', process.env.DATABASE_URL);
    project.provide('templateDatabase', template.name);
    return async () => {
      await template.drop();
      await removeCompiledSources();
    };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-test-pg-'));
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), ephemeral: true });
  project.provide('postgresUrl', server.url);
  project.provide('templateDatabase', (await createTemplateDatabase(server.url)).name);
  return async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    await removeCompiledSources();
  };
}
