import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

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

/**
 * The entry points tests start as processes, each bundled (below). Any other entry still runs, module by module.
 * test/support/fixtures/* are added by listing the folder.
 */
const SPAWNED_ENTRIES = ['server/main.ts', 'server/serve-subgraph.ts', 'cli/index.ts', 'test/e2e/remote-trainer/remote-worker.ts'];
const FIXTURES_DIR = 'test/support/fixtures';

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

/**
 * Inside a bundle every module would see the bundle's `import.meta`; this gives each of our modules the one it has
 * module by module (its file in the transpiled tree), so what it finds from its own location (the model, the
 * explorer's assets, the runtime worker's entry) and its "am I the main module" checks are unchanged.
 */
function ownImportMeta(root: string, outdir: string): Plugin {
  return {
    name: 'own-import-meta',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const compiledFile = path.join(outdir, path.relative(root, args.path)).replace(/\.ts$/, '.js');
        const meta: Record<string, string> = {
          url: pathToFileURL(compiledFile).href,
          filename: compiledFile,
          dirname: path.dirname(compiledFile),
        };
        const source = await readFile(args.path, 'utf8');
        // Same-length-line replacement (no new lines), so the source map's lines still match.
        const contents = source.replace(/\bimport\.meta\.(url|filename|dirname)\b/g, (_, key: string) => JSON.stringify(meta[key]));
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * Each spawned entry point as one file (our modules bundled, packages left to Node), written over its module-by-module
 * output: Node then resolves, reads and links one module of ours instead of several hundred, which took about
 * 0.4 s off each platform process start (see the commit that added it).
 */
async function bundleSpawnedEntries(root: string, outdir: string): Promise<void> {
  const fixtures = (await readdir(path.join(root, FIXTURES_DIR))).filter((name) => name.endsWith('.ts')).map((name) => `${FIXTURES_DIR}/${name}`);
  await build({
    entryPoints: [...SPAWNED_ENTRIES, ...fixtures].map((entry) => path.join(root, entry)),
    outdir,
    outbase: root,
    bundle: true,
    packages: 'external',
    // type-graphql and error classes read class names; a bundle renames colliding ones unless told to keep them.
    keepNames: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: path.join(root, 'tsconfig.json'),
    sourcemap: 'inline',
    allowOverwrite: true,
    plugins: [ownImportMeta(root, outdir)],
    logLevel: 'error',
  });
}

/**
 * Transpiles every TypeScript file of the repository (tests excepted) into `<root>/.test-build-<pid>/`, module by
 * module, then bundles the entry points tests start over their own output.
 */
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
  await bundleSpawnedEntries(root, outdir);
  return outdir;
}
