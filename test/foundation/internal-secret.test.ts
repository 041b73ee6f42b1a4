import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOrCreateSecretFile } from '../../platform/internal-secret.js';
import { compiledEntry, REPO_ROOT } from '../support/processes.js';

/**
 * Processes of one install (a process per core) start together and each asks for the same generated secret (the
 * internal secret, the secrets' master key, the embedded database's passwords): all must get the one secret, and
 * none an empty one read while another process was still writing the file.
 */
const SECRET = /^[0-9a-f]{64}$/;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-secret-'));
  dirs.push(dir);
  return dir;
}

/** Owner-only, and nothing but the secret file left in the directory. */
async function expectSecretFileAlone(dir: string, answer: string): Promise<void> {
  expect(await readdir(dir)).toEqual(['secret']);
  expect((await readFile(path.join(dir, 'secret'), 'utf8')).trim()).toBe(answer);
  expect((await stat(path.join(dir, 'secret'))).mode & 0o777).toBe(0o600);
}

/** Runs the racing fixture in `processes` processes at once; each one's answers, per round. */
async function raceInProcesses(dir: string, processes: number, rounds: number, calls: number): Promise<string[][][]> {
  const children = Array.from({ length: processes }, () => {
    const child = spawn(process.execPath, [compiledEntry('test/support/fixtures/race-for-secret-files.ts'), dir, String(rounds), String(calls)], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const ready = new Promise<void>((resolve) => child.stdout.on('data', () => stdout.startsWith('ready\n') && resolve()));
    const exited = new Promise<string[][]>((resolve, reject) =>
      child.once('close', (code) => (code === 0 ? resolve(JSON.parse(stdout.slice('ready\n'.length))) : reject(new Error(`fixture exited ${code}: ${stderr}`)))),
    );
    return { child, ready, exited };
  });
  // A fixture that dies before it is ready fails the test with its output instead of leaving it waiting.
  await Promise.all(children.map((child) => Promise.race([child.ready, child.exited])));
  for (const { child } of children) child.stdin.end('go\n');
  return Promise.all(children.map((child) => child.exited));
}

describe('loadOrCreateSecretFile', () => {
  it('gives every concurrent caller of a process the same secret, in an owner-only file', async () => {
    const dir = await freshDir();
    const answers = await Promise.all(Array.from({ length: 20 }, () => loadOrCreateSecretFile(dir, 'secret', undefined)));
    expect(new Set(answers)).toEqual(new Set([answers[0]]));
    expect(answers[0]).toMatch(SECRET);
    await expectSecretFileAlone(dir, answers[0]!);
    expect(await loadOrCreateSecretFile(dir, 'secret', undefined)).toBe(answers[0]);
  });

  // In one process the creator's write is queued ahead of the others' reads, so the race needs processes: on the
  // code that created the file and then wrote it, every run of these 1000 rounds had some (1–30 %) in which a
  // caller was answered ''.
  it('gives processes starting together one secret, never one read half-written', async () => {
    const dir = await freshDir();
    const rounds = 1000;
    const perProcess = await raceInProcesses(dir, 2, rounds, 2);
    const mismatched: { round: number; answers: string[] }[] = [];
    for (let round = 0; round < rounds; round++) {
      const answers = perProcess.flatMap((answersOf) => answersOf[round]!);
      if (new Set(answers).size !== 1 || !SECRET.test(answers[0]!)) mismatched.push({ round, answers: [...new Set(answers)] });
      else await expectSecretFileAlone(path.join(dir, `round-${round}`), answers[0]!);
    }
    expect(mismatched.slice(0, 3), `${mismatched.length} of ${rounds} rounds gave different or malformed secrets`).toEqual([]);
  });

  it('prefers the environment, and creates nothing then', async () => {
    const dir = await freshDir();
    expect(await loadOrCreateSecretFile(dir, 'secret', 'from-env')).toBe('from-env');
    expect(await readdir(dir)).toEqual([]);
  });
});
