/** Where the shipped base model lives, resolved from this file so it works from both sources and dist/. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoModelDir(): string {
  // model-runtime/default-model.ts → ../models/trellis-tiny; dist/model-runtime/default-model.js → ../../models/trellis-tiny
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, 'models', 'trellis-tiny');
    if (existsSync(join(candidate, 'config.json'))) return candidate;
    dir = resolve(dir, '..');
  }
  return resolve('models', 'trellis-tiny');
}

export const DEFAULT_MODEL_DIR = findRepoModelDir();
