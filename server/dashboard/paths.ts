import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file (sources or dist/) holding `dashboard/` and package.json. */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'schema', 'supergraph.graphql'))) return dir;
    dir = resolve(dir, '..');
  }
  throw new Error('Trellis repository root not found');
}

/** Where `npm start` builds the dashboard and the platform serves it from. */
export function dashboardOutDir(root?: string): string {
  if (root === undefined) {
    try {
      root = repositoryRoot();
    } catch {
      root = process.cwd(); // a deployment without the sources: dist/ next to where the platform runs
    }
  }
  return join(root, 'dist', 'dashboard');
}
