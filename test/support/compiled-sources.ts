import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * The repository's TypeScript, transpiled once per test run for the OS processes tests start (spawnEntry). Through
 * tsx each such process spent about 2 s more starting (its loader transforms or reads from its cache every module
 * again), and the suite starts well over a hundred of them. esbuild is what tsx runs underneath, with the same
 * tsconfig, so the processes run the same JavaScript; only the loading is done once, ahead of time.
 *
 * The output keeps the sources' layout one folder below the repository root, as `dist/` does, so code that finds
 * repository files from its own location (the dashboard, the model, the explorer's assets) finds them the same way.
 * The run's teardown removes it.
 */
/** Each run has its own folder (`.test-build-<pid>`): runs in parallel in one checkout must not rewrite each other's. */
export const COMPILED_SOURCES_PREFIX = '.test-build-';

/** Top-level folders without server-side TypeScript (`dashboard/` is the browser app, built by Vite). */
const SKIPPED_TOP_LEVEL = new Set(['node_modules', 'dist', 'dashboard', 'data', 'docs', 'schema', 'deploy', 'models']);

async function typeScriptFiles(root: string, dir = root): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const skipped = entry.name.startsWith('.') || entry.name === 'node_modules' || (dir === root && SKIPPED_TOP_LEVEL.has(entry.name));
      if (!skipped) files.push(...(await typeScriptFiles(root, path.join(dir, entry.name))));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) {
      files.push(path.join(dir, entry.name));
    }
  }
  return files;
}

/** Transpiles every TypeScript file of the repository (tests excepted) into `<root>/.test-build-<pid>/`, module by module. */
export async function compileSources(root: string): Promise<string> {
  const outdir = path.join(root, `${COMPILED_SOURCES_PREFIX}${process.pid}`);
  await build({
    entryPoints: await typeScriptFiles(root),
    outdir,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(root, 'tsconfig.json'),
    sourcemap: 'inline',
    logLevel: 'error',
  });
  return outdir;
}
