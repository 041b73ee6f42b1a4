import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A secret read from the environment, or else generated once into the data directory with owner-only
 * permissions, so a single-machine install needs no configuration and keeps the same secret across restarts.
 */
export async function loadOrCreateSecretFile(dataDir: string, fileName: string, fromEnv: string | undefined): Promise<string> {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, fileName);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  try {
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return (await readFile(file, 'utf8')).trim();
    throw error;
  }
}
