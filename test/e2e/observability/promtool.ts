import { spawn } from 'node:child_process';

/**
 * `promtool check metrics` (Debian's `prometheus` package) on an exposition: its complaints, one per line, or []
 * when it accepts it. Where promtool is not installed the strict reader (prometheus-text.ts) is the only check, so
 * this resolves [] then.
 */
/**
 * promtool's only complaint that is no error of ours: three of prom-client's default Node.js gauges are named
 * `…_total` (prom-client's names, kept: dashboards know them). Parse errors are never accepted.
 */
const PROM_CLIENT_DEFAULT_NAMES = /^trellis_nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

export function promtoolProblems(text: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve([]) : reject(error)));
    child.once('close', (code) =>
      resolve(code === 0 ? [] : output.split('\n').filter((line) => line.trim() !== '' && !PROM_CLIENT_DEFAULT_NAMES.test(line))),
    );
    child.stdin.end(text);
  });
}
