import { Field, Float, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { SystemCheckReport } from './system-check.js';

@ObjectType('TrainingHealth', { description: 'Liveness of the training API. Also at GET /training/v1/health' })
export class TrainingHealth {
  @Field(() => String, { description: '`ok` while the API answers' }) status!: string;
}

@ObjectType('TrainingSystemCheckResult', { description: 'The result of one check of the training system' })
export class TrainingSystemCheckResult {
  @Field(() => String, { description: 'What was checked: api, database, job_store, job_queue or workers' }) name!: string;
  @Field(() => Boolean, { description: 'Whether the check passed' }) success!: boolean;
  @Field(() => Float, { description: 'How long the check took, in seconds' }) duration!: number;
  @Field(() => [String], { description: 'Why the check failed (anonymous callers read only messages meant for anyone)' }) errors!: string[];
  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: "What the check found (job counts of the caller's teams, queue and worker settings); only for callers with an API key",
  })
  details!: Record<string, unknown> | null;
}

@ObjectType('TrainingSystemCheck', {
  description: 'The training system check: api, database, job store, job queue and workers, with durations. Also at GET /training/v1/system-check (503 when a check fails)',
})
export class TrainingSystemCheck {
  @Field(() => Boolean, { description: 'Whether every check passed' }) success!: boolean;
  @Field(() => [TrainingSystemCheckResult], { description: 'Each check, in the order they are reported' }) checks!: TrainingSystemCheckResult[];
}

export function toTrainingSystemCheck(report: SystemCheckReport): TrainingSystemCheck {
  return Object.assign(new TrainingSystemCheck(), {
    success: report.success,
    checks: Object.entries(report.checks).map(([name, result]) =>
      Object.assign(new TrainingSystemCheckResult(), { name, success: result.success, duration: result.duration, errors: result.errors, details: result.details ?? null }),
    ),
  });
}
