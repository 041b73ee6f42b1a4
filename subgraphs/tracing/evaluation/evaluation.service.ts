import { sql, type Kysely } from 'kysely';
import { BadRequestError, NotFoundError } from '../../../platform/errors.js';
import type { TracingDatabase } from '../db/database.js';
import { digestOfJson, parseObjectRef } from '../refs.js';
import { EVAL_META } from '../score/score.service.js';

/**
 * Evaluation runs as a dashboard reads them, whichever way they were recorded:
 * - the Weave SDKs' `Evaluation.evaluate` call (inputs `self` = the evaluation ref, `model`), whose children are
 *   `Evaluation.predictAndScore` calls (JS SDK; `Evaluation.predict_and_score` in Python) with inputs `example` = a
 *   dataset row ref or the row, and output `{ model_output (Python: output), scores: { <scorer>: value }, … }`;
 * - the v2 evaluation API's run (kind `evaluation_run`), whose children are predictions and scores (a score's
 *   `_weave_eval_meta.prediction_id` names its prediction; its output is the value).
 * Summaries are computed from the examples (not read from the SDK's own summary), so both kinds agree: a scorer's
 * value that is a number or a boolean is one metric; in an object, each number or boolean leaf is one metric (its
 * dotted path). Booleans count as 1/0, so their mean is the fraction true.
 */

const EVALUATE_OP = '%/op/Evaluation.evaluate:%';
/** The JS SDK's op, and the Python SDK's. */
const PREDICT_AND_SCORE_OPS = ['%/op/Evaluation.predictAndScore:%', '%/op/Evaluation.predict_and_score:%'];
/** A comparison reads at most this many examples per run; larger runs are compared on their first ones. */
export const MAX_COMPARED_EXAMPLES = 2_000;
/** How many runs one comparison holds side by side. */
export const MIN_COMPARED_RUNS = 2;
export const MAX_COMPARED_RUNS = 4;

export type EvaluationRunStatus = 'running' | 'success' | 'error';
export type MetricKind = 'number' | 'boolean';

export interface ScorerMetricSummary {
  scorer: string;
  metric: string | null;
  kind: MetricKind;
  mean: number;
  count: number;
}

export interface EvaluationRunRecord {
  id: string;
  traceId: string | null;
  source: 'weave_sdk' | 'evaluation_api';
  evaluation: string;
  evaluationRef: string | null;
  model: string;
  modelRef: string | null;
  displayName: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  status: EvaluationRunStatus;
  exception: string | null;
  exampleCount: number;
  scores: ScorerMetricSummary[];
}

/** One scorer metric's value for one example. */
export interface MetricValue {
  scorer: string;
  metric: string | null;
  kind: MetricKind;
  value: number;
}

export interface RunExample {
  key: string;
  /** The call that produced it: the SDK's predictAndScore call, or the evaluation API's prediction. */
  callId: string;
  inputs: unknown;
  output: unknown;
  values: MetricValue[];
}

export interface ComparedMetric {
  scorer: string;
  metric: string | null;
  kind: MetricKind;
  valueA: number | null;
  valueB: number | null;
}

export interface ComparedExample {
  key: string;
  inputs: unknown;
  outputA: unknown;
  outputB: unknown;
  inA: boolean;
  inB: boolean;
  metrics: ComparedMetric[];
}

export interface EvaluationComparisonRecord {
  runA: EvaluationRunRecord;
  runB: EvaluationRunRecord;
  examples: ComparedExample[];
  truncated: boolean;
}

/** One run's result for one example of a comparison. */
export interface ExampleResult {
  callId: string;
  output: unknown;
  values: MetricValue[];
}

export interface RunsComparedExample {
  key: string;
  inputs: unknown;
  /** One per compared run, in the order the runs were named; null where that run has no such example. */
  results: (ExampleResult | null)[];
}

export interface RunsComparisonRecord {
  runs: EvaluationRunRecord[];
  examples: RunsComparedExample[];
  truncated: boolean;
}

interface RunRow {
  id: string;
  trace_id: string | null;
  op_name: string | null;
  display_name: string | null;
  kind: string;
  inputs: unknown;
  attributes: unknown;
  started_at: Date | null;
  ended_at: Date | null;
  exception: string | null;
}

interface ChildRow {
  id: string;
  parent_id: string | null;
  kind: string;
  op_name: string | null;
  inputs: unknown;
  output: unknown;
  attributes: unknown;
  started_at: Date | null;
}

export class EvaluationService {
  constructor(private readonly db: Kysely<TracingDatabase>) {}

  /** A page of the project's evaluation runs, newest start first (then by id). */
  async runs(projectId: string, limit: number, offset: number): Promise<EvaluationRunRecord[]> {
    const rows = await this.runQuery(projectId)
      .orderBy(sql`started_at desc nulls last`)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return this.summarize(projectId, rows as RunRow[]);
  }

  /** How many evaluation runs the project has (both kinds, as `runs` lists them). */
  async count(projectId: string): Promise<number> {
    const row = await this.runQuery(projectId)
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async run(projectId: string, id: string): Promise<EvaluationRunRecord | null> {
    const rows = (await this.runQuery(projectId).where('id', '=', id).execute()) as RunRow[];
    const [record] = await this.summarize(projectId, rows);
    return record ?? null;
  }

  /** Two runs side by side, example by example (joined on the dataset row, or on the inputs' digest). */
  async compare(projectId: string, idA: string, idB: string): Promise<EvaluationComparisonRecord> {
    const { runs, examples, truncated } = await this.compareRuns(projectId, [idA, idB]);
    return {
      runA: runs[0]!,
      runB: runs[1]!,
      truncated,
      examples: examples.map((example) => {
        const [a, b] = example.results;
        const metrics = new Map<string, ComparedMetric>();
        for (const [side, result] of [['A', a], ['B', b]] as const) {
          for (const value of result?.values ?? []) {
            const id = metricId(value);
            const entry = metrics.get(id) ?? { scorer: value.scorer, metric: value.metric, kind: value.kind, valueA: null, valueB: null };
            if (side === 'A') entry.valueA = value.value;
            else entry.valueB = value.value;
            metrics.set(id, entry);
          }
        }
        return {
          key: example.key,
          inputs: example.inputs,
          outputA: a?.output ?? null,
          outputB: b?.output ?? null,
          inA: Boolean(a),
          inB: Boolean(b),
          metrics: [...metrics.values()].sort(compareMetrics),
        };
      }),
    };
  }

  /**
   * Two to four runs side by side (the first is the baseline a dashboard compares the others with), example by
   * example: each example carries one result per run, in the order the runs were named (null where that run has
   * no such example), with the call that produced it.
   */
  async compareRuns(projectId: string, ids: string[]): Promise<RunsComparisonRecord> {
    if (ids.length < MIN_COMPARED_RUNS || ids.length > MAX_COMPARED_RUNS) {
      throw new BadRequestError(`Compare ${MIN_COMPARED_RUNS} to ${MAX_COMPARED_RUNS} evaluation runs (${ids.length} given)`, { param: 'runs' });
    }
    const rows = (await this.runQuery(projectId).where('id', 'in', ids).execute()) as RunRow[];
    const ordered = ids.map((id) => {
      const row = rows.find((candidate) => candidate.id === id);
      if (!row) throw new NotFoundError(`Evaluation run ${id} not found in project ${projectId}`);
      return row;
    });
    const children = await this.children(projectId, ids);
    // A run named twice (a run compared with itself) is read once.
    const read = new Map<string, Promise<RunExample[]>>();
    const examplesOf = (row: RunRow) => read.get(row.id) ?? read.set(row.id, this.examples(projectId, row, children.get(row.id) ?? [])).get(row.id)!;
    const examplesPerRun = await Promise.all(ordered.map(examplesOf));
    const runs = ordered.map((row, index) => toRecord(row, examplesPerRun[index]!));

    const byKey = examplesPerRun.map((examples) => new Map(examples.map((example) => [example.key, example])));
    const keys = [...new Set(examplesPerRun.flatMap((examples) => examples.map((example) => example.key)))];
    const truncated = keys.length > MAX_COMPARED_EXAMPLES;
    const examples = keys.slice(0, MAX_COMPARED_EXAMPLES).map((key): RunsComparedExample => {
      const results = byKey.map((examples) => {
        const example = examples.get(key);
        return example ? { callId: example.callId, output: example.output, values: [...example.values].sort(compareMetrics) } : null;
      });
      return { key, inputs: byKey.map((examples) => examples.get(key)).find(Boolean)!.inputs, results };
    });
    return { runs, examples, truncated };
  }

  private runQuery(projectId: string) {
    return this.db
      .selectFrom('calls')
      .select(['id', 'trace_id', 'op_name', 'display_name', 'kind', 'inputs', 'attributes', 'started_at', 'ended_at', 'exception'])
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('kind', '=', 'evaluation_run'), eb.and([eb('kind', '=', 'call'), eb('op_name', 'like', EVALUATE_OP)])]));
  }

  /** The examples of each run: predictAndScore children (SDK) or predictions and scores (evaluation API). */
  private async children(projectId: string, runIds: string[]): Promise<Map<string, ChildRow[]>> {
    const byRun = new Map<string, ChildRow[]>();
    if (runIds.length === 0) return byRun;
    const rows = (await this.db
      .selectFrom('calls')
      .select(['id', 'parent_id', 'kind', 'op_name', 'inputs', 'output', 'attributes', 'started_at'])
      .where('project_id', '=', projectId)
      .where('parent_id', 'in', runIds)
      .where((eb) => eb.or([eb('kind', 'in', ['prediction', 'score']), ...PREDICT_AND_SCORE_OPS.map((pattern) => eb('op_name', 'like', pattern))]))
      .orderBy('started_at')
      .orderBy('id')
      .execute()) as ChildRow[];
    for (const row of rows) {
      const list = byRun.get(row.parent_id!) ?? [];
      list.push(row);
      byRun.set(row.parent_id!, list);
    }
    return byRun;
  }

  private async summarize(projectId: string, rows: RunRow[]): Promise<EvaluationRunRecord[]> {
    const children = await this.children(
      projectId,
      rows.map((row) => row.id),
    );
    return Promise.all(rows.map(async (row) => toRecord(row, await this.examples(projectId, row, children.get(row.id) ?? [], false))));
  }

  /** A run's examples, in the order they were recorded; `withInputs` resolves dataset row refs to their rows. */
  private async examples(projectId: string, run: RunRow, children: ChildRow[], withInputs = true): Promise<RunExample[]> {
    if (run.kind === 'evaluation_run') return apiExamples(children);
    const examples = children.map((child): RunExample & { rowDigest: string | null } => {
      const inputs = asObject(child.inputs);
      const output = asObject(child.output);
      const example = inputs.example;
      const rowDigest = typeof example === 'string' ? rowDigestOf(example) : null;
      const scores = asObject(output.scores);
      return {
        key: rowDigest ?? digestOfJson(example ?? null),
        callId: child.id,
        rowDigest,
        inputs: example ?? null,
        output: output.model_output ?? output.output ?? null,
        values: Object.entries(scores).flatMap(([scorer, value]) => metricsOf(scorer, value)),
      };
    });
    if (withInputs) {
      const digests = [...new Set(examples.flatMap((example) => (example.rowDigest ? [example.rowDigest] : [])))];
      if (digests.length > 0) {
        const rows = await this.db.selectFrom('table_rows').select(['digest', 'val']).where('project_id', '=', projectId).where('digest', 'in', digests).execute();
        const values = new Map(rows.map((row) => [row.digest, row.val]));
        for (const example of examples) if (example.rowDigest && values.has(example.rowDigest)) example.inputs = values.get(example.rowDigest);
      }
    }
    return examples.map(({ rowDigest: _rowDigest, ...example }) => example);
  }
}

function apiExamples(children: ChildRow[]): RunExample[] {
  const examples = new Map<string, RunExample>();
  for (const child of children) {
    if (child.kind !== 'prediction') continue;
    examples.set(child.id, { key: digestOfJson(child.inputs ?? {}), callId: child.id, inputs: child.inputs ?? {}, output: child.output ?? null, values: [] });
  }
  for (const child of children) {
    if (child.kind !== 'score') continue;
    const meta = asObject(asObject(child.attributes)[EVAL_META]);
    const example = examples.get(String(meta.prediction_id));
    if (!example) continue;
    const scorer = typeof meta.scorer === 'string' ? (parseObjectRef(meta.scorer)?.name ?? meta.scorer) : 'score';
    example.values.push(...metricsOf(scorer, child.output));
  }
  return [...examples.values()];
}

function toRecord(row: RunRow, examples: RunExample[]): EvaluationRunRecord {
  const inputs = asObject(row.inputs);
  const api = row.kind === 'evaluation_run';
  const meta = asObject(asObject(row.attributes)[EVAL_META]);
  const evaluationRef = String((api ? meta.evaluation : inputs.self) ?? '') || null;
  const modelRef = String((api ? meta.model : inputs.model) ?? '') || null;
  const sums = new Map<string, ScorerMetricSummary & { sum: number }>();
  for (const example of examples) {
    for (const value of example.values) {
      const id = metricId(value);
      const entry = sums.get(id) ?? { scorer: value.scorer, metric: value.metric, kind: value.kind, mean: 0, count: 0, sum: 0 };
      entry.sum += value.value;
      entry.count += 1;
      sums.set(id, entry);
    }
  }
  return {
    id: row.id,
    traceId: row.trace_id,
    source: api ? 'evaluation_api' : 'weave_sdk',
    evaluation: nameOf(evaluationRef) ?? 'Evaluation',
    evaluationRef: evaluationRef?.startsWith('weave:///') ? evaluationRef : null,
    model: nameOf(modelRef) ?? 'model',
    modelRef: modelRef?.startsWith('weave:///') ? modelRef : null,
    displayName: row.display_name,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    status: row.exception ? 'error' : row.ended_at ? 'success' : 'running',
    exception: row.exception,
    exampleCount: examples.length,
    scores: [...sums.values()].map(({ sum, ...entry }) => ({ ...entry, mean: entry.count > 0 ? sum / entry.count : 0 })).sort(compareMetrics),
  };
}

/** The metrics of one scorer output: itself when a number or boolean, else each number or boolean leaf (dotted path). */
export function metricsOf(scorer: string, value: unknown, path: string[] = []): MetricValue[] {
  const metric = path.length > 0 ? path.join('.') : null;
  if (typeof value === 'number' && Number.isFinite(value)) return [{ scorer, metric, kind: 'number', value }];
  if (typeof value === 'boolean') return [{ scorer, metric, kind: 'boolean', value: value ? 1 : 0 }];
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && path.length < 4) {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => metricsOf(scorer, item, [...path, key]));
  }
  return [];
}

const metricId = (value: { scorer: string; metric: string | null }) => `${value.scorer}\u0000${value.metric ?? ''}`;
const compareMetrics = (a: { scorer: string; metric: string | null }, b: { scorer: string; metric: string | null }) =>
  a.scorer.localeCompare(b.scorer) || (a.metric ?? '').localeCompare(b.metric ?? '');

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** `weave:///e/p/object/Dataset:d/attr/rows/id/<rowDigest>` → the row digest. */
function rowDigestOf(ref: string): string | null {
  const match = /\/attr\/rows\/id\/([^/]+)$/.exec(ref);
  return match ? match[1]! : null;
}

/** The object or op name of a ref, or the string itself when it is a plain name. */
function nameOf(refOrName: string | null): string | null {
  if (!refOrName) return null;
  return parseObjectRef(refOrName)?.name ?? refOrName;
}
