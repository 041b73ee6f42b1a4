import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { parsePrometheusText, samplesOf, type Sample } from './prometheus-text.js';
import { promtoolProblems } from './promtool.js';

/**
 * `npm start` with two platform processes on one port (TRELLIS_PROCESSES=2): `/metrics`, whichever process answers
 * the scrape, has every process's series apart (label `process`), so one hot or leaking process shows — before,
 * the primary summed them into one series without a label.
 */
let dataDir: string;
let platform: NodeProcess;
let url: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-cluster-metrics-'));
  const port = await freePort();
  platform = spawnEntry('server/main.ts', [], {
    TRELLIS_DATA_DIR: dataDir,
    PORT: String(port),
    DATABASE_URL: '',
    TRELLIS_PROCESSES: '2',
    TRELLIS_EMBEDDED_MODEL: 'off',
  });
  url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, platform, 120_000);
}, 180_000);

afterAll(async () => {
  if (platform && platform.child.exitCode === null) {
    platform.kill('SIGTERM');
    await platform.exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** One request on a connection of its own, so node:cluster hands it to the next process. */
function get(pathname: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}${pathname}`, { agent: false }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      })
      .on('error', reject);
  });
}

async function scrape(): Promise<Sample[]> {
  const { status, text } = await get('/metrics');
  expect(status).toBe(200);
  expect(await promtoolProblems(text)).toEqual([]);
  return samplesOf(parsePrometheusText(text));
}

const healthzCount = (samples: Sample[], process: string) =>
  samples.find((sample) => sample.name === 'trellis_http_request_duration_seconds_count' && sample.labels.route === '/healthz' && sample.labels.process === process)?.value ?? 0;

describe('metrics of a process-per-core platform', () => {
  it("keeps each process's series apart, labelled service=platform and its process index", async () => {
    const before = await scrape();
    for (let request = 0; request < 6; request++) expect((await get('/healthz')).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      const samples = await scrape(); // answered by one process or the other
      for (const sample of samples) {
        expect(sample.labels.service, sample.name).toBe('platform');
        expect(['0', '1'], `${sample.name} ${JSON.stringify(sample.labels)}`).toContain(sample.labels.process);
      }
      // Each process's own memory, CPU and requests, not their sum.
      for (const process of ['0', '1']) {
        expect(samples.filter((sample) => sample.name === 'trellis_process_resident_memory_bytes' && sample.labels.process === process)).toHaveLength(1);
        expect(samples.filter((sample) => sample.name === 'trellis_process_cpu_seconds_total' && sample.labels.process === process)).toHaveLength(1);
        // When each process started (prom-client's cluster aggregation had left it out).
        expect(samples.filter((sample) => sample.name === 'trellis_process_start_time_seconds' && sample.labels.process === process)).toHaveLength(1);
        expect(healthzCount(samples, process), `process ${process} answered some of the requests`).toBeGreaterThan(healthzCount(before, process));
      }
      const answered = healthzCount(samples, '0') + healthzCount(samples, '1') - healthzCount(before, '0') - healthzCount(before, '1');
      expect(answered).toBe(6);
      // The platform-wide workers run in the first process: their series come from it.
      const consumers = samples.filter((sample) => sample.name === 'trellis_event_consumer_lag_seconds');
      expect(consumers.length).toBeGreaterThan(0);
      expect(new Set(consumers.map((sample) => sample.labels.process))).toEqual(new Set(['0']));
    }
  });

  it('answers /readyz from every process', async () => {
    for (let request = 0; request < 4; request++) {
      const { status, text } = await get('/readyz');
      expect(status).toBe(200);
      expect(JSON.parse(text)).toEqual({ status: 'ready', checks: [{ check: 'database', ok: true }] });
    }
  });
});
