import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { dashboardTypesAreCurrent } from './codegen.js';
import { dashboardOutDir, repositoryRoot } from './paths.js';

/**
 * Builds the dashboard (dashboard/, Vite + React) into dist/dashboard, which the platform serves under /ui/.
 * Incremental: the build is skipped when a hash of its inputs (every file under dashboard/, the lock file and this
 * script) equals the one stamped in the output by the last build. `npm start` runs it before the server.
 */
export const DASHBOARD_BASE = '/ui/';
const STAMP = '.build-stamp';

export interface DashboardBuildResult {
  built: boolean;
  hash: string;
  outDir: string;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Hash of everything the build output depends on. */
export async function dashboardInputsHash(root = repositoryRoot()): Promise<string> {
  const hash = createHash('sha256');
  const files = [...(await listFiles(join(root, 'dashboard'))), join(root, 'package-lock.json'), fileURLToPath(import.meta.url)].sort();
  for (const file of files) {
    hash.update(relative(root, file)).update('\0').update(await readFile(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Serialises builds of one checkout (test files build concurrently; the output folder is shared). */
async function withLock<T>(root: string, run: () => Promise<T>): Promise<T> {
  const lock = join(root, 'dist', '.dashboard-build.lock');
  await mkdir(join(root, 'dist'), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock left by a killed build: older than two minutes.
      const age = Date.now() - (await stat(lock).then((s) => s.mtimeMs, () => Date.now()));
      if (age > 120_000 || Date.now() > deadline) await rm(lock, { recursive: true, force: true });
      else await sleep(100);
    }
  }
  try {
    return await run();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

export async function buildDashboard(options: { root?: string; force?: boolean; quiet?: boolean } = {}): Promise<DashboardBuildResult> {
  const root = options.root ?? repositoryRoot();
  const outDir = dashboardOutDir(root);
  return withLock(root, async () => {
    const hash = await dashboardInputsHash(root);
    const previous = await readFile(join(outDir, STAMP), 'utf8').catch(() => '');
    if (!options.force && previous.trim() === hash) return { built: false, hash, outDir };

    const { current } = await dashboardTypesAreCurrent(root);
    if (!current) {
      throw new Error('dashboard/src/graphql/generated.ts is stale (its .graphql documents or schema/supergraph.graphql changed): run `npm run dashboard:codegen`');
    }
    const [{ build }, { default: react }] = await Promise.all([import('vite'), import('@vitejs/plugin-react')]);
    await build({
      configFile: false,
      root: join(root, 'dashboard'),
      base: DASHBOARD_BASE,
      logLevel: options.quiet ? 'warn' : 'info',
      plugins: [react()],
      build: {
        outDir,
        emptyOutDir: true,
        // The polyfill would be an inline script, which the page's Content-Security-Policy refuses.
        modulePreload: { polyfill: false },
        // Files only (no data: URLs): every asset is a hashed, immutable URL under /ui/assets/.
        assetsInlineLimit: 0,
        sourcemap: false,
        target: 'es2022',
        reportCompressedSize: !options.quiet,
      },
    });
    await writeFile(join(outDir, STAMP), hash + '\n');
    return { built: true, hash, outDir };
  });
}

// `npm start` / `npm run dashboard:build`
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now();
  try {
    const result = await buildDashboard({ force: process.argv.includes('--force') });
    process.stdout.write(result.built ? `dashboard built in ${Date.now() - started} ms\n` : 'dashboard unchanged (build skipped)\n');
  } catch (error) {
    process.stderr.write(`dashboard build failed: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
