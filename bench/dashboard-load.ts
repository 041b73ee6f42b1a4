/**
 * The dashboard's first load: a fresh browser profile (cold cache) opening the platform's `/` on localhost, until the
 * sign-in form can be typed into, and after signing in until Home shows its data; with the bundle each page loads.
 * Next to it, in the same run, the floor: the same browser loading a static page of the same server (the GraphQL
 * explorer's HTML is not comparable, so the floor is `/healthz`: one request, no script).
 *
 *   npm run build && node dist/server/dashboard/build.js && node dist/bench/dashboard-load.js [--rounds 7]
 *
 * Needs Debian's Chromium (`/usr/bin/chromium`, or CHROMIUM_PATH). Target (dashboard issue): under 1 s to interactive.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../platform/db/embedded-postgres.js';
import { fmt, REPO_ROOT, startService, summarize, waitUntilOk, type Service } from './support.js';

const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1] ?? 7) || 7;
const KEY = 'bench-admin-key-0123456789abcdefghijkl';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function main() {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-dashboard-'));
  let embedded: RunningPostgres | undefined;
  let platform: Service | undefined;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
    const port = await freePort();
    platform = startService('server/main.js', [], {
      DATABASE_URL: embedded.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      TRELLIS_BOOTSTRAP_API_KEY: KEY,
      TRELLIS_DATA_DIR: path.join(tmp, 'data'),
    });
    const base = `http://127.0.0.1:${port}`;
    await waitUntilOk(`${base}/healthz`);
    console.log(`Dashboard first load — Node ${process.version}, ${os.cpus().length} CPUs, Chromium ${browser.version()}, ${ROUNDS} cold loads`);
    await reportBundle();

    const signInMs: number[] = [];
    const homeMs: number[] = [];
    const floorMs: number[] = [];
    const bytes: number[] = [];
    for (let round = 0; round < ROUNDS + 1; round += 1) {
      // A new context is a new profile: empty HTTP cache, empty session storage.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      let transferred = 0;
      page.on('response', (response) => void response.body().then((body) => (transferred += body.length), () => undefined));
      const started = performance.now();
      await page.goto(`${base}/`);
      await page.getByLabel('API key').waitFor();
      const interactive = performance.now() - started;
      await page.getByLabel('API key').fill(KEY);
      const signedIn = performance.now();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Recent traces' }).waitFor();
      await page.locator('section[data-team="trellis"]').getByRole('row', { name: /default/ }).waitFor();
      const home = performance.now() - signedIn;
      await context.close();

      const floorContext = await browser.newContext();
      const floorPage = await floorContext.newPage();
      const floorStarted = performance.now();
      await floorPage.goto(`${base}/healthz`);
      const floor = performance.now() - floorStarted;
      await floorContext.close();
      if (round === 0) continue; // the first round warms the server (JIT, caches), not the browser
      signInMs.push(interactive);
      homeMs.push(home);
      floorMs.push(floor);
      bytes.push(transferred);
    }
    const line = (label: string, samples: number[]) => {
      const stats = summarize(samples);
      console.log(`  ${label.padEnd(44)} median ${fmt(stats.median).padStart(10)}   max ${fmt(Math.max(...samples)).padStart(10)}`);
      return stats;
    };
    console.log('\nCold load (new browser profile each round):');
    const signIn = line('/ → sign-in form interactive', signInMs);
    const home = line('sign in → Home with its data', homeMs);
    line('floor: /healthz in the same browser', floorMs);
    console.log(`  bytes transferred until Home: ${(summarize(bytes).median / 1024).toFixed(0)} KiB (uncompressed bodies)`);
    console.log(`\n  target < 1 s to interactive: ${signIn.median < 1000 ? 'met' : 'MISSED'} (sign-in form); Home ${home.median < 1000 ? 'within' : 'beyond'} 1 s after signing in`);
  } finally {
    await browser.close();
    await platform?.stop();
    await embedded?.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The built bundle: what the entry loads, and each page's own chunk (loaded on first visit). */
async function reportBundle() {
  const assets = path.join(REPO_ROOT, 'dist', 'dashboard', 'assets');
  const index = await readFile(path.join(REPO_ROOT, 'dist', 'dashboard', 'index.html'), 'utf8');
  const files = (await readdir(assets)).sort();
  let entry = 0;
  let entryGzip = 0;
  const rows: string[] = [];
  for (const file of files) {
    const body = await readFile(path.join(assets, file));
    const size = (await stat(path.join(assets, file))).size;
    const gzip = gzipSync(body).length;
    const inEntry = index.includes(file);
    if (inEntry) {
      entry += size;
      entryGzip += gzip;
    }
    if (file.endsWith('.js') || file.endsWith('.css')) rows.push(`    ${file.padEnd(40)} ${(size / 1024).toFixed(1).padStart(7)} KiB ${(gzip / 1024).toFixed(1).padStart(7)} KiB gzip${inEntry ? '  (entry)' : ''}`);
  }
  console.log(`\nBundle (dist/dashboard/assets): entry ${(entry / 1024).toFixed(1)} KiB, ${(entryGzip / 1024).toFixed(1)} KiB gzip; pages are separate chunks`);
  for (const row of rows) console.log(row);
}

await main();
