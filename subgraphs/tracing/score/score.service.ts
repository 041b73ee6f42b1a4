import type { Kysely } from 'kysely';
import { BadRequestError, NotFoundError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { callStore, type CallRow } from '../call/call.store.js';
import type { CallService, Writer } from '../call/call.service.js';
import type { CallKind, TracingDatabase } from '../db/database.js';
import type { FeedbackService } from '../feedback/feedback.service.js';
import { callRef, parseObjectRef } from '../refs.js';
import { EvaluationRunCreateBody, EvaluationRunFinishBody, PredictionCreateBody, ScoreCreateBody } from './score.schemas.js';

/** Where the evaluation API keeps its own facts on the calls it records. */
export const EVAL_META = '_weave_eval_meta';

export interface ScoreRecord {
  id: string;
  prediction_id: string;
  scorer: string;
  value: unknown;
  evaluation_run_id: string | null;
  created_at: Date;
}

/**
 * The v2 evaluation API: evaluation runs, predictions and scores are calls (so they show up in traces), with the
 * facts the API needs in `attributes._weave_eval_meta`. A score is a call of op `<Scorer>.score` — a child of its
 * evaluation run when one is given — plus feedback on the prediction's call, written in one transaction.
 */
export class ScoreService {
  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly calls: CallService,
    private readonly feedback: FeedbackService,
  ) {}

  async createEvaluationRun(writer: Writer, projectId: string, body: unknown): Promise<string> {
    const request = validateOrThrow(EvaluationRunCreateBody, body, 'body');
    const call = await this.calls.writeCompleted(this.db, writer, {
      project_id: projectId,
      op_name: `${nameOf(request.evaluation)}.evaluate`,
      attributes: { [EVAL_META]: { evaluation_run: true, evaluation: request.evaluation, model: request.model } },
      inputs: { evaluation: request.evaluation, model: request.model },
      kind: 'evaluation_run',
      ended: false,
    });
    return call.id;
  }

  async finishEvaluationRun(writer: Writer, projectId: string, id: string, body: unknown): Promise<void> {
    const request = validateOrThrow(EvaluationRunFinishBody, body ?? {}, 'body');
    await this.requireCall(projectId, id, 'evaluation_run');
    await callStore.finish(this.db, projectId, id, request.summary ?? {});
    void writer;
  }

  /** `exception`: the prediction failed (a platform-run evaluation's model answered an error); it is recorded as a failed call. */
  async createPrediction(writer: Writer, projectId: string, body: unknown, exception: string | null = null): Promise<string> {
    const request = validateOrThrow(PredictionCreateBody, body, 'body');
    return this.db.transaction().execute(async (trx) => {
      const run = request.evaluation_run_id ? await this.requireCall(projectId, request.evaluation_run_id, 'evaluation_run', trx) : null;
      const call = await this.calls.writeCompleted(trx, writer, {
        project_id: projectId,
        op_name: `${nameOf(request.model)}.predict`,
        parent_id: run?.id ?? null,
        trace_id: run?.trace_id ?? null,
        attributes: { [EVAL_META]: { prediction: true, model: request.model, evaluation_run_id: request.evaluation_run_id ?? null } },
        inputs: request.inputs,
        output: request.output,
        exception,
        kind: 'prediction',
        ended: true,
      });
      return call.id;
    });
  }

  async createScore(writer: Writer, projectId: string, body: unknown): Promise<string> {
    const request = validateOrThrow(ScoreCreateBody, body, 'body');
    const scorer = parseObjectRef(request.scorer);
    if (!scorer || scorer.kind !== 'object') {
      throw new BadRequestError(`scorer must be an object ref of the form weave:///<entity>/<project>/object/<Name>:<digest>, got "${request.scorer}"`);
    }
    return this.db.transaction().execute(async (trx) => {
      const prediction = await this.requireCall(projectId, request.prediction_id, 'prediction', trx);
      const run = request.evaluation_run_id ? await this.requireCall(projectId, request.evaluation_run_id, 'evaluation_run', trx) : null;
      const score = await this.calls.writeCompleted(trx, writer, {
        project_id: projectId,
        op_name: `${scorer.name}.score`,
        parent_id: run?.id ?? null,
        trace_id: run?.trace_id ?? null,
        attributes: {
          [EVAL_META]: { score: true, prediction_id: prediction.id, scorer: request.scorer, evaluation_run_id: run?.id ?? null },
        },
        inputs: { prediction_id: prediction.id },
        output: request.value,
        kind: 'score',
        ended: true,
      });
      await this.feedback.insert(trx, writer, {
        project_id: projectId,
        weave_ref: callRef(projectId, prediction.id),
        feedback_type: `wandb.runnable.${scorer.name}`,
        payload: { output: request.value },
        runnable_ref: request.scorer,
        call_ref: callRef(projectId, score.id),
      });
      return score.id;
    });
  }

  async scores(projectId: string, options: { predictionId?: string | null; limit: number; offset: number }): Promise<ScoreRecord[]> {
    const rows = await callStore.query(
      this.db,
      projectId,
      { filter: { kinds: ['score'], scoredPredictionId: options.predictionId } },
      [{ field: 'started_at', direction: 'asc' }],
      options.limit,
      options.offset,
    );
    return rows.map(toScoreRecord);
  }

  async requireCall(projectId: string, id: string, kind: CallKind, db: Kysely<TracingDatabase> = this.db): Promise<CallRow> {
    const call = await callStore.read(db, projectId, id);
    const label = kind === 'evaluation_run' ? 'Evaluation run' : kind === 'prediction' ? 'Prediction' : 'Call';
    if (!call || call.kind !== kind) throw new NotFoundError(`${label} ${id} not found in project ${projectId}`);
    return call;
  }
}

export function evalMetaOf(call: CallRow): Record<string, unknown> {
  return ((call.attributes as Record<string, unknown> | null)?.[EVAL_META] ?? {}) as Record<string, unknown>;
}

function toScoreRecord(call: CallRow): ScoreRecord {
  const meta = evalMetaOf(call);
  return {
    id: call.id,
    prediction_id: String(meta.prediction_id),
    scorer: String(meta.scorer),
    value: call.output,
    evaluation_run_id: (meta.evaluation_run_id as string | null) ?? null,
    created_at: call.created_at,
  };
}

/** The object name of a ref, or the string itself when it is a plain name. */
function nameOf(refOrName: string): string {
  return parseObjectRef(refOrName)?.name ?? refOrName;
}
