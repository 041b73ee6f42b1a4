import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import type { GraphCaller } from '../../../platform/graphql/platform-graph.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { Writer } from '../call/call.service.js';
import type { DatasetService } from '../dataset/dataset.service.js';
import { InvalidCheckError } from '../monitor/built-in-checks.js';
import { checkScorer } from '../monitor/monitor-validation.js';
import type { MonitorScorer } from '../monitor/monitor.schemas.js';
import type { ObjectService } from '../object/object.service.js';
import { parseObjectRef } from '../refs.js';
import type { ScoreService } from '../score/score.service.js';
import { DatasetEvaluationSchema, MAX_EVALUATED_ROWS, type DatasetEvaluationRequest } from './dataset-evaluation.schemas.js';
import type { EvaluatedModels } from './evaluated-models.js';
import { promptOf, splitRange, type EvaluationExample } from './evaluation-rows.js';
import type { EvaluationRunner, PublishedScorer } from './evaluation-runner.js';

const DEFAULT_PROMPT_COLUMN = 'input';
const DEFAULT_EXPECTED_COLUMN = 'expected';
const DEFAULT_MAX_TOKENS = 64;
const DEFAULT_SEED = 0;
/** The class of the scorer objects an evaluation publishes (a Weave `Scorer`, defined as a monitor's scorer). */
const SCORER_CLASS = 'MonitorScorer';

/** What evaluateDataset answers at once: the runs started (one per model, in the order named), still running. */
export interface StartedEvaluation {
  evaluationRef: string;
  datasetRef: string;
  datasetVersion: string;
  rowStart: number;
  rowEnd: number;
  runs: { id: string; model: string }[];
}

/** What the checks found: the dataset version, the rows and their prompts, the scorers as they will run. */
interface CheckedEvaluation {
  dataset: NonNullable<Awaited<ReturnType<DatasetService['readVersion']>>>;
  rows: { start: number; end: number };
  examples: EvaluationExample[];
  scorers: { name: string; scorer: MonitorScorer }[];
  evaluationName: string;
}

/**
 * evaluateDataset: everything is checked first — the request's schema, the dataset version, the split, every row's
 * prompt, the scorers (the monitors' one validation), and every model (asked of its owning family, as the caller) —
 * and all issues are reported together at their input paths, with nothing written. Then the scorers and the
 * Evaluation are published as Weave objects, one v2 evaluation run per model is created, and the runner runs them.
 */
export class DatasetEvaluationService {
  constructor(
    private readonly datasets: DatasetService,
    private readonly objects: ObjectService,
    private readonly scores: ScoreService,
    private readonly models: EvaluatedModels,
    private readonly runner: EvaluationRunner,
  ) {}

  async start(caller: GraphCaller, writer: Writer, projectId: string, body: unknown): Promise<StartedEvaluation> {
    const request = validateOrThrow(DatasetEvaluationSchema, body, 'body');
    writer.assertWriter(projectId.split('/')[0]!);
    this.runner.assertAccepting();
    const checked = await this.check(caller, projectId, request);

    const scorers = await Promise.all(checked.scorers.map((entry) => this.publishScorer(writer, projectId, entry.name, entry.scorer)));
    const evaluationRef = await this.publishEvaluation(writer, projectId, checked, scorers, request);
    const runs: { runId: string; model: string }[] = [];
    for (const model of request.models) runs.push({ runId: await this.scores.createEvaluationRun(writer, projectId, { evaluation: evaluationRef, model }), model });
    const settings = { maxTokens: request.max_tokens ?? DEFAULT_MAX_TOKENS, seed: request.seed ?? DEFAULT_SEED };
    await this.runner.launch({ projectId, datasetRef: checked.dataset.ref, rows: checked.rows, runs, examples: checked.examples, scorers, settings }, caller, writer);
    return {
      evaluationRef,
      datasetRef: checked.dataset.ref,
      datasetVersion: checked.dataset.version,
      rowStart: checked.rows.start,
      rowEnd: checked.rows.end,
      runs: runs.map((run) => ({ id: run.runId, model: run.model })),
    };
  }

  /** Every check before anything is written; all issues together, as one BAD_USER_INPUT. */
  private async check(caller: GraphCaller, projectId: string, request: DatasetEvaluationRequest): Promise<CheckedEvaluation> {
    const issues: ValidationIssue[] = [];
    const dataset = await this.readDataset(projectId, request.dataset, issues);
    const range = dataset ? splitRange(request.split, dataset.rows.length) : null;
    if (range && 'loc' in range) issues.push(range);
    const rows = range && !('loc' in range) ? range : null;
    const examples = dataset && rows ? this.examples(dataset.rows, rows, request, issues) : [];
    const scorers = request.scorers.map((entry, index) => ({ name: entry.name, scorer: this.scorer(entry.scorer, index, request, issues) }));
    const names = request.scorers.map((entry) => entry.name);
    const twice = names.findIndex((name, index) => names.indexOf(name) !== index);
    if (twice >= 0) issues.push(issueAt(['scorers', twice, 'name'], `Two scorers are named ${names[twice]}`));
    const evaluationName = request.name ?? `${(dataset?.objectId ?? request.dataset).slice(0, 117)}-evaluation`;
    issues.push(...(await this.takenNames(projectId, names, evaluationName)));
    issues.push(...(await this.models.unknown(request.models, caller)));
    if (issues.length > 0 || !dataset || !rows) throw new ValidationFailedError(issues, issues[0]?.msg);
    return { dataset, rows, examples, scorers, evaluationName };
  }

  /** The Evaluation as a Weave object (dataset, rows, scorers, columns): what each run's `evaluation` names. */
  private async publishEvaluation(writer: Writer, projectId: string, checked: CheckedEvaluation, scorers: PublishedScorer[], request: DatasetEvaluationRequest): Promise<string> {
    const val = {
      _type: 'Evaluation',
      _class_name: 'Evaluation',
      _bases: ['Object', 'BaseModel'],
      name: checked.evaluationName,
      dataset: checked.dataset.ref,
      scorers: scorers.map((scorer) => scorer.ref),
      rows: checked.rows,
      prompt_column: request.prompt_column ?? DEFAULT_PROMPT_COLUMN,
      expected_column: request.expected_column ?? DEFAULT_EXPECTED_COLUMN,
      system_prompt: request.system_prompt ?? null,
    };
    const { digest } = await this.objects.createObject(writer, { obj: { project_id: projectId, object_id: checked.evaluationName, val } });
    return `weave:///${projectId}/object/${checked.evaluationName}:${digest}`;
  }

  /**
   * The scorers and the Evaluation are published as new versions of objects by those names: a name whose latest
   * version is another kind of object (the dataset itself, a prompt) would be overwritten by them, so it is refused.
   */
  private async takenNames(projectId: string, scorerNames: string[], evaluationName: string): Promise<ValidationIssue[]> {
    const latest = await this.objects.queryObjects(projectId, { objectIds: [...scorerNames, evaluationName], latestOnly: true }, scorerNames.length + 1, 0);
    const classOf = new Map(latest.map((row) => [row.object_id, (row.val as { _class_name?: unknown } | null)?._class_name]));
    const issues: ValidationIssue[] = [];
    const taken = (name: string, expected: string) => classOf.has(name) && classOf.get(name) !== expected;
    scorerNames.forEach((name, index) => {
      if (taken(name, SCORER_CLASS)) issues.push(issueAt(['scorers', index, 'name'], `${name} is already another kind of object of ${projectId} (${String(classOf.get(name))}); name the scorer otherwise`));
    });
    if (taken(evaluationName, 'Evaluation')) issues.push(issueAt(['name'], `${evaluationName} is already another kind of object of ${projectId} (${String(classOf.get(evaluationName))}); give the evaluation a name`));
    return issues;
  }

  /** `name`, `name:v<N>`, `name:<digest>` or `weave:///{this project}/object/name:digest`. */
  private async readDataset(projectId: string, reference: string, issues: ValidationIssue[]) {
    let name = reference;
    let version = 'latest';
    if (reference.startsWith('weave:///')) {
      const ref = parseObjectRef(reference);
      if (!ref || ref.kind !== 'object' || `${ref.entity}/${ref.project}` !== projectId) {
        issues.push(issueAt(['dataset'], `${reference} is not a Dataset ref of ${projectId}`));
        return null;
      }
      ({ name, digest: version } = ref);
    } else if (reference.includes(':')) {
      [name, version] = [reference.slice(0, reference.lastIndexOf(':')), reference.slice(reference.lastIndexOf(':') + 1)];
    }
    const found = await this.datasets.readVersion(projectId, name, version);
    if (!found) issues.push(issueAt(['dataset'], `No Dataset ${name}:${version} in ${projectId}`));
    return found;
  }

  private examples(rows: Record<string, unknown>[], range: { start: number; end: number }, request: DatasetEvaluationRequest, issues: ValidationIssue[]): EvaluationExample[] {
    if (range.end - range.start > MAX_EVALUATED_ROWS) {
      issues.push(issueAt(['split'], `The split selects ${range.end - range.start} rows; one evaluation takes at most ${MAX_EVALUATED_ROWS}`));
      return [];
    }
    const column = request.prompt_column ?? DEFAULT_PROMPT_COLUMN;
    const examples: EvaluationExample[] = [];
    for (let index = range.start; index < range.end; index++) {
      const row = rows[index] ?? {};
      const messages = promptOf(row, column, request.system_prompt ?? null);
      if (!messages) {
        issues.push(issueAt(['prompt_column'], `Row ${index} has no prompt in column "${column}" (text, chat messages, or an object with messages)`));
        return [];
      }
      examples.push({ rowIndex: index, row, messages });
    }
    return examples;
  }

  /** The scorer as it will run: contains/equals without other_field compare with the expected column; checked as monitors' scorers are. */
  private scorer(scorer: MonitorScorer, index: number, request: DatasetEvaluationRequest, issues: ValidationIssue[]): MonitorScorer {
    const expected = `inputs.${request.expected_column ?? DEFAULT_EXPECTED_COLUMN}`;
    const completed = (scorer.kind === 'contains' || scorer.kind === 'equals') && !scorer.other_field ? { ...scorer, other_field: expected } : scorer;
    try {
      checkScorer(completed);
    } catch (error) {
      if (!(error instanceof InvalidCheckError)) throw error;
      issues.push(issueAt(['scorers', index, 'scorer', error.setting], error.message));
    }
    return completed;
  }

  /** The scorer as a Weave object (what the scores' `scorer` ref points at and the compare page names). */
  private async publishScorer(writer: Writer, projectId: string, name: string, scorer: MonitorScorer): Promise<PublishedScorer> {
    const val = { _type: SCORER_CLASS, _class_name: SCORER_CLASS, _bases: ['Scorer', 'Object', 'BaseModel'], name, ...scorer };
    const { digest } = await this.objects.createObject(writer, { obj: { project_id: projectId, object_id: name, val } });
    return { name, ref: `weave:///${projectId}/object/${name}:${digest}`, scorer };
  }
}

function issueAt(path: (string | number)[], msg: string): ValidationIssue {
  return { loc: ['body', ...path], msg, type: 'value_error' };
}
