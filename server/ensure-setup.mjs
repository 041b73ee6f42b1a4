// What `npm start` and `npm test` do before anything else (their `prestart` / `pretest` scripts), so that the
// README's two commands are the whole set-up on a fresh clone. Plain Node with no dependency: it runs before
// node_modules exists.
//
// - Dependencies: installed from the lock file (`npm ci`) when node_modules is missing or was installed from another
//   lock file (a pull that changed dependencies). The lock file's hash is kept in node_modules after a successful
//   install; a tree installed by hand without it is checked against npm's own record of what it installed.
// - `--browser` (npm test): the dashboard's browser tests drive Debian's Chromium. When it is missing, install it
//   where that is possible without asking (Debian and root, as CI runs), else stop at once saying what to install.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lockFile = path.join(root, 'package-lock.json');
const marker = path.join(root, 'node_modules', '.trellis-installed-lock');

function lockHash() {
  return createHash('sha256').update(readFileSync(lockFile)).digest('hex');
}

/** npm's record of the installed tree (node_modules/.package-lock.json) lists exactly the lock's packages. */
function installedMatchesLock() {
  const hidden = path.join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(hidden)) return false;
  const wanted = JSON.parse(readFileSync(lockFile, 'utf8')).packages ?? {};
  const installed = JSON.parse(readFileSync(hidden, 'utf8')).packages ?? {};
  for (const [name, entry] of Object.entries(wanted)) {
    // The root entry and optional packages for other platforms are not in npm's record of the installed tree.
    if (name === '' || entry.optional || entry.link) continue;
    if (installed[name]?.version !== entry.version) return false;
  }
  return true;
}

function ensureDependencies() {
  const hash = lockHash();
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === hash) return;
  if (!existsSync(marker) && installedMatchesLock()) {
    writeFileSync(marker, `${hash}\n`);
    return;
  }
  process.stderr.write('Installing dependencies from package-lock.json (npm ci)…\n');
  execFileSync('npm', ['ci', '--no-fund', '--no-audit'], { cwd: root, stdio: 'inherit' });
  writeFileSync(marker, `${hash}\n`);
}

function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

function ensureBrowser() {
  if (existsSync(chromiumPath())) return;
  const debian = existsSync('/etc/debian_version');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!process.env.CHROMIUM_PATH && debian && isRoot) {
    process.stderr.write('Installing Chromium for the dashboard browser tests (apt-get install chromium)…\n');
    execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-q', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (existsSync(chromiumPath())) return;
  }
  process.stderr.write(
    `npm test needs Chromium for the dashboard browser tests, and there is none at ${chromiumPath()}.\n` +
      'Install it (Debian/Ubuntu: sudo apt-get install chromium), or point CHROMIUM_PATH at a Chromium or Chrome binary.\n',
  );
  process.exit(1);
}

try {
  ensureDependencies();
  if (process.argv.includes('--browser')) ensureBrowser();
} catch (error) {
  process.stderr.write(`Set-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
