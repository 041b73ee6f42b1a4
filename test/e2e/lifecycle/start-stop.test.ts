import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { spawnEntry, waitForHttp, waitForOutput } from '../../support/processes.js';

/**
 * `npm start`'s process as a user runs it: no DATABASE_URL, so it starts embedded PostgreSQL in the data
 * directory; SIGTERM drains and stops everything; a second start on the same directory keeps the data.
 */
const KEY = 'lifecycle-bootstrap-key-0123456789';
let dataDir: string;
/**
 * The platform the first test leaves running after its restart, for the second to stop: each start is a primary,
 * PostgreSQL and a process per core (about 10 s of CPU), and the second test needs one that has served requests.
 */
let running: Awaited<ReturnType<typeof startOnce>> | undefined;
afterAll(async () => {
  if (running) {
    running.platform.kill('SIGTERM');
    await running.platform.exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function startOnce(dataDir: string) {
  const port = await freePort();
  const platform = spawnEntry('server/main.ts', [], {
    TRELLIS_DATA_DIR: dataDir,
    PORT: String(port),
    TRELLIS_BOOTSTRAP_API_KEY: KEY,
    DATABASE_URL: '',
    TRELLIS_PROCESSES: '', // npm start's default: a process per core
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, platform, 90_000);
  // With a process per core the first process can answer before the others: started is when the banner says so.
  await waitForOutput(platform, 'Trellis is running at');
  return { platform, url };
}

async function viewer(url: string) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ query: 'mutation { ensureProject(entity: "trellis", name: "kept") { fullName } }' }),
  });
  return (await response.json()) as any;
}

describe('npm start on the embedded default', () => {
  it('starts embedded PostgreSQL, stops cleanly on SIGTERM, and keeps data across restarts', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-lifecycle-'));
    const first = await startOnce(dataDir);
    expect(first.platform.output()).toContain(`Trellis is running at ${first.url}`);
    expect((await viewer(first.url)).data.ensureProject.fullName).toBe('trellis/kept');
    const secretFile = await stat(path.join(dataDir, 'postgres', 'PG_VERSION'));
    expect(secretFile.isFile()).toBe(true);
    // The operator CLI reaches the running platform's server (its socket and generated password) by the data directory.
    const cli = spawnEntry('cli/index.ts', ['user', 'create', 'operator-made'], { TRELLIS_DATA_DIR: dataDir, DATABASE_URL: '' });
    expect(await cli.exited, cli.output()).toBe(0);

    first.platform.kill('SIGTERM');
    expect(await first.platform.exited).toBe(0);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false); // PostgreSQL stopped too

    const second = await startOnce(dataDir);
    const projects = await fetch(`${second.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ query: '{ team(name: "trellis") { projects { name } } }' }),
    });
    expect(((await projects.json()) as any).data.team.projects.map((p: { name: string }) => p.name)).toEqual(['default', 'kept']);
    running = second; // stopped by the next test (SIGTERM); SIGINT is the last test's stop
  }, 180_000);

  it('exits promptly and cleanly on SIGTERM after serving requests', async () => {
    dataDir ??= await mkdtemp(path.join(os.tmpdir(), 'trellis-lifecycle-'));
    const run = running ?? (await startOnce(dataDir));
    running = undefined;
    const response = await fetch(`${run.url}/healthz`, { headers: { connection: 'close' } });
    expect(response.status).toBe(200);
    run.platform.kill('SIGTERM');
    const exit = await Promise.race([run.platform.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    if (exit === 'still running') run.platform.kill('SIGKILL');
    expect(exit).toBe(0);
  }, 120_000);

  it('recovers the data directory from a platform that was killed (orphaned PostgreSQL)', async () => {
    const killed = await startOnce(dataDir);
    killed.platform.kill('SIGKILL');
    await killed.platform.exited;
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(true); // its server is still running
    const next = await startOnce(dataDir);
    expect((await viewer(next.url)).data.ensureProject.fullName).toBe('trellis/kept');
    next.platform.kill('SIGINT');
    expect(await next.platform.exited).toBe(0);
  }, 180_000);
});
