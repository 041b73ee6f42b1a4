import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * A secret read from the environment, or else generated once into the data directory with owner-only
 * permissions, so a single-machine install needs no configuration and keeps the same secret across restarts.
 *
 * Processes of one install may start together and race to create it: the file only ever appears complete (see
 * `createSecretFile`), so a loser of the race reads the winner's whole secret, never a file still being written.
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
  if (await createSecretFile(file, secret)) return secret;
  // Another process created it first: use theirs.
  return (await readFile(file, 'utf8')).trim();
}

/**
 * Writes the secret in full under a temporary name of this call's own, then links it to `file`: link() fails if
 * `file` exists, so exactly one caller's secret becomes the file, and it appears with its content already in it
 * (creating `file` itself and then writing it left a moment in which others read it empty). False: `file` existed.
 */
async function createSecretFile(file: string, secret: string): Promise<boolean> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${secret}\n`);
    // On disk before it has its name: a crash must not leave an install with an empty secret file.
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
