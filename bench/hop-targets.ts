/**
 * Issue #15's targets for the inference hop, judged from one run's cells: at the highest concurrency of each
 * upstream delay and mode, Trellis' added p50 must be ≤ 2× the floor's added p50 (or ≤ 1 ms more than the floor's,
 * whichever is larger) and its added p99 ≤ 3× the floor's added p99. "Added" is judged twice: against the direct cell
 * (the issue's definition; the direct cell ran seconds earlier) and against the direct probes that ran in the same
 * seconds as the proxy (the better-defined baseline on a shared machine). A floor whose added p99 is ≤ 0 (its p99
 * below the baseline's: noise) gives no p99 target: that check is reported as undefined, not passed.
 *
 * Rounds: when the highest concurrency was measured in several interleaved rounds (`--rounds`), each round's added
 * figures are taken against that round's direct cell (or the cell's own probes), and the verdict uses the median
 * over the rounds of each figure — Trellis' and the floor's alike — so one disturbed round does not decide it.
 */
export interface HopCell {
  target: string;
  mode: string;
  delayMs: number;
  concurrency: number;
  throughput: number;
  p50: number;
  p99: number;
  probeP50?: number;
  probeP99?: number;
  /** Which interleaved round measured the cell (absent: the only one). */
  round?: number;
}

export type Verdict = 'met' | 'missed' | 'undefined';

export interface HopCheck {
  /** The target judged: Trellis, or another proxy held to the same limits (`control`, `essentials`). */
  target: string;
  delayMs: number;
  mode: string;
  concurrency: number;
  baseline: 'direct' | 'probes';
  /** The judged target's added p50 / p99. */
  added: { p50: number; p99: number };
  floor: { p50: number; p99: number };
  limit: { p50: number; p99: number | undefined };
  p50: Verdict;
  p99: Verdict;
  /** Rounds whose figures were combined (medians). */
  rounds: number;
}

/** The p50 and p99 limits that the floor's added latency sets. */
export function hopLimits(floorAdded: { p50: number; p99: number }): { p50: number; p99: number | undefined } {
  return {
    p50: Math.max(2 * floorAdded.p50, floorAdded.p50 + 1),
    p99: floorAdded.p99 > 0 ? 3 * floorAdded.p99 : undefined,
  };
}

/** The median of a non-empty list (the mean of the middle two for an even length). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The cells of each (delay, mode) at that pair's highest concurrency: what the targets are judged on. */
function atHighestConcurrency(cells: HopCell[]): {
  delayMs: number;
  mode: string;
  concurrency: number;
  at(target: string, round?: number): HopCell | undefined;
  rounds: number[];
}[] {
  const groups = new Map<string, HopCell[]>();
  for (const cell of cells) {
    const key = `${cell.delayMs}/${cell.mode}`;
    const group = groups.get(key);
    if (group) group.push(cell);
    else groups.set(key, [cell]);
  }
  return [...groups.values()].map((group) => {
    const concurrency = Math.max(...group.map((cell) => cell.concurrency));
    const highest = group.filter((cell) => cell.concurrency === concurrency);
    return {
      delayMs: group[0]!.delayMs,
      mode: group[0]!.mode,
      concurrency,
      at: (target: string, round?: number) => highest.find((cell) => cell.target === target && (round === undefined || (cell.round ?? 1) === round)),
      rounds: [...new Set(highest.map((cell) => cell.round ?? 1))].sort((a, b) => a - b),
    };
  });
}

/**
 * One check per (delay, mode) at its highest concurrency and per baseline, where `target` (default Trellis) and the
 * floor both ran. Any target can be held to the limits: the bench also judges a second bare proxy (`control`: does
 * the floor meet its own targets on this machine today?) and the essential gateway (the work without Trellis'
 * structure).
 */
export function checkHopTargets(cells: HopCell[], target = 'trellis'): HopCheck[] {
  const checks: HopCheck[] = [];
  for (const { delayMs, mode, concurrency, at, rounds } of atHighestConcurrency(cells)) {
    const baselines: { name: 'direct' | 'probes'; of: (cell: HopCell, round: number) => { p50: number; p99: number } | undefined }[] = [
      {
        name: 'direct',
        of: (_cell, round) => {
          const direct = at('direct', round);
          return direct ? { p50: direct.p50, p99: direct.p99 } : undefined;
        },
      },
      { name: 'probes', of: (cell) => (cell.probeP50 !== undefined && cell.probeP99 !== undefined ? { p50: cell.probeP50, p99: cell.probeP99 } : undefined) },
    ];
    for (const baseline of baselines) {
      // Each round's added figures against its own baseline; rounds missing a cell or a baseline are left out.
      const added = rounds.flatMap((round) => {
        const [floor, judged] = [at('floor', round), at(target, round)];
        if (!floor || !judged) return [];
        const [floorBase, judgedBase] = [baseline.of(floor, round), baseline.of(judged, round)];
        if (!floorBase || !judgedBase) return [];
        return [{ floor: { p50: floor.p50 - floorBase.p50, p99: floor.p99 - floorBase.p99 }, judged: { p50: judged.p50 - judgedBase.p50, p99: judged.p99 - judgedBase.p99 } }];
      });
      if (added.length === 0) continue;
      const medianOf = (side: 'floor' | 'judged') => ({ p50: median(added.map((round) => round[side].p50)), p99: median(added.map((round) => round[side].p99)) });
      const [floorAdded, judgedAdded] = [medianOf('floor'), medianOf('judged')];
      const limit = hopLimits(floorAdded);
      checks.push({
        target,
        delayMs,
        mode,
        concurrency,
        baseline: baseline.name,
        added: judgedAdded,
        floor: floorAdded,
        limit,
        p50: judgedAdded.p50 <= limit.p50 ? 'met' : 'missed',
        p99: limit.p99 === undefined ? 'undefined' : judgedAdded.p99 <= limit.p99 ? 'met' : 'missed',
        rounds: added.length,
      });
    }
  }
  return checks.sort((a, b) => a.delayMs - b.delayMs || a.mode.localeCompare(b.mode) || a.baseline.localeCompare(b.baseline));
}

export interface ThroughputRatio {
  delayMs: number;
  mode: string;
  concurrency: number;
  /** Trellis' throughput over Portkey's. */
  ratio: number;
  /** The most any target could reach over Portkey's in this cell (undefined without an upstream delay). */
  cap: number | undefined;
}

/** The run's throughput ratio of Trellis to Portkey per (delay, mode) at the highest concurrency, with the offered cap. */
export function throughputAgainstPortkey(cells: HopCell[]): ThroughputRatio[] {
  const rows: ThroughputRatio[] = [];
  for (const { delayMs, mode, concurrency, at } of atHighestConcurrency(cells)) {
    const [trellis, portkey] = [at('trellis'), at('portkey')];
    if (!trellis || !portkey || portkey.throughput <= 0) continue;
    // A closed loop of N clients offers at most N / delay: no target can exceed it, so neither can the ratio.
    const offered = delayMs > 0 ? (concurrency * 1000) / delayMs : undefined;
    rows.push({ delayMs, mode, concurrency, ratio: trellis.throughput / portkey.throughput, cap: offered === undefined ? undefined : offered / portkey.throughput });
  }
  return rows;
}
