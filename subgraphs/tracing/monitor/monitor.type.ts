import { Field, Float, Int, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import { monitorRef, type MonitorDefinition } from './monitor-definition.js';
import type { MonitorWithStats } from './monitor.service.js';
import { DEFAULT_JUDGE_MODEL } from './llm-judge.js';
import { ModelTokenUsage, toModelTokenUsage } from '../usage/token-usage.type.js';

// simpleResolvers: plain properties, read by graphql-js's default resolver.
@ObjectType({ description: 'Which calls a monitor looks at', simpleResolvers: true })
export class MonitorFilter {
  @Field(() => [String], { description: 'Only calls of these ops (by name or op ref); empty: every op' }) opNames!: string[];
  @Field(() => JSONObjectScalar, { description: 'Only calls whose attributes have these keys equal to these values' }) attributes!: Record<string, unknown>;
  @Field(() => Boolean, { description: 'Only trace roots (calls without a parent)' }) rootsOnly!: boolean;
}

@ObjectType({ description: "A monitor's scorer: a built-in check and its settings", simpleResolvers: true })
export class MonitorScorer {
  @Field(() => String, { description: 'The check, as MonitorScorerKind names it: REGEX, JSON_SCHEMA, LENGTH, CONTAINS or EQUALS' }) kind!: string;
  @Field(() => String, { description: 'The call field checked (a dotted path such as `output` or `output.answer`)' }) field!: string;
  @Field(() => String, { nullable: true, description: 'regex: the pattern (RE2 syntax)' }) pattern!: string | null;
  @Field(() => JSONObjectScalar, { nullable: true, description: 'json_schema: the JSON Schema the field must satisfy' }) jsonSchema!: Record<string, unknown> | null;
  @Field(() => Int, { nullable: true, description: 'length: the least length, in characters' }) minLength!: number | null;
  @Field(() => Int, { nullable: true, description: 'length: the greatest length, in characters' }) maxLength!: number | null;
  @Field(() => String, { nullable: true, description: 'contains/equals: the call field compared with' }) otherField!: string | null;
  @Field(() => String, { nullable: true, description: 'llm_judge: the prompt template' }) prompt!: string | null;
  @Field(() => String, { nullable: true, description: 'llm_judge: the catalog model that answers (null: `trellis-tiny`)' }) model!: string | null;
  @Field(() => Int, { nullable: true, description: 'llm_judge: most tokens of its answer (null: 16)' }) maxTokens!: number | null;
  @Field(() => Float, { nullable: true, description: 'llm_judge: the least score (null: 0)' }) scoreMin!: number | null;
  @Field(() => Float, { nullable: true, description: 'llm_judge: the greatest score (null: 1)' }) scoreMax!: number | null;
}

@ObjectType({ description: 'When a monitor announces a quality drop (a MONITOR_SCORE_DROP automation event)', simpleResolvers: true })
export class MonitorThreshold {
  @Field(() => Float, { description: 'The mean score under which it is a drop' }) below!: number;
  @Field(() => Int, { description: 'The window, in minutes' }) windowMinutes!: number;
  @Field(() => Int, { description: 'Fewest scored calls in the window for the mean to count' }) minSamples!: number;
}

@ObjectType({ description: 'What a monitor has done: calls scored, passed over by sampling, failed, and its scoring latency', simpleResolvers: true })
export class MonitorStats {
  @Field(() => Int, { description: 'Calls scored (each has a feedback record with the score)' }) scored!: number;
  @Field(() => Int, { description: 'Matching calls its sampling rate passed over' }) skippedBySampling!: number;
  @Field(() => Int, { description: 'Calls it could not score (e.g. the field checked was absent)' }) failed!: number;
  @Field(() => Float, { nullable: true, description: 'Mean time the scorer took per call, in milliseconds (scored and failed calls)' }) meanLatencyMs!: number | null;
  @Field(() => Float, { nullable: true, description: 'Mean score of the scored calls' }) meanScore!: number | null;
  @Field(() => Int, { description: "Prompt tokens its LLM judge spent (0 for built-in checks)" }) promptTokens!: number;
  @Field(() => Int, { description: "Completion tokens its LLM judge spent (0 for built-in checks)" }) completionTokens!: number;
  @Field(() => ModelTokenUsage, {
    nullable: true,
    description:
      "An LLM judge's tokens as its model's token usage, whose `cost` the inference family prices (at the judge's model as it is now); null for built-in checks",
  })
  judgeUsage!: ModelTokenUsage | null;
}

@ObjectType({ description: "A monitor (online evaluation): a scorer applied to a sample of a project's new calls, its scores written as feedback", simpleResolvers: true })
export class Monitor {
  @Field(() => String, { description: 'The monitor id (UUIDv7)' }) id!: string;
  @Field(() => String, { description: 'The project, as `<entity>/<project>`' }) projectId!: string;
  @Field(() => String, { description: 'Its name, unique in the project; its scores are feedback of type `wandb.runnable.<name>`' }) name!: string;
  @Field(() => String, { description: 'The monitor as an object ref: the runnable_ref and trigger_ref of its scores' }) ref!: string;
  @Field(() => MonitorFilter, { description: 'Which calls it looks at' }) filter!: MonitorFilter;
  @Field(() => Float, { description: 'The share of matching calls scored, in (0, 1]' }) samplingRate!: number;
  @Field(() => MonitorScorer, { description: 'How calls are scored' }) scorer!: MonitorScorer;
  @Field(() => Boolean, { description: 'Whether it scores new calls (false: paused)' }) active!: boolean;
  @Field(() => MonitorThreshold, { nullable: true, description: 'When it announces a quality drop (null: never)' }) threshold!: MonitorThreshold | null;
  @Field(() => Date, { description: 'When it was created' }) createdAt!: Date;
  @Field(() => Date, { description: 'When it was last changed' }) updatedAt!: Date;
  @Field(() => MonitorStats, { nullable: true, description: 'Its counts so far (listed monitors; null in mutation answers)' }) stats!: MonitorStats | null;
}

/** The graph's Monitor; its ref is derived from the definition (monitorRef), as the scores' runnable refs are. */
export function toMonitor(monitor: MonitorDefinition | MonitorWithStats): Monitor {
  const stats = 'stats' in monitor ? monitor.stats : null;
  return {
    id: monitor.id,
    projectId: monitor.projectId,
    name: monitor.name,
    ref: monitorRef(monitor),
    filter: { opNames: monitor.filter.op_names, attributes: monitor.filter.attributes, rootsOnly: monitor.filter.roots_only },
    samplingRate: monitor.samplingRate,
    scorer: {
      kind: monitor.scorer.kind.toUpperCase(),
      field: monitor.scorer.field ?? 'output',
      pattern: monitor.scorer.pattern ?? null,
      jsonSchema: (monitor.scorer.json_schema as Record<string, unknown> | undefined) ?? null,
      minLength: monitor.scorer.min_length ?? null,
      maxLength: monitor.scorer.max_length ?? null,
      otherField: monitor.scorer.other_field ?? null,
      prompt: monitor.scorer.prompt ?? null,
      model: monitor.scorer.model ?? null,
      maxTokens: monitor.scorer.max_tokens ?? null,
      scoreMin: monitor.scorer.score_min ?? null,
      scoreMax: monitor.scorer.score_max ?? null,
    },
    active: monitor.active,
    threshold: monitor.threshold
      ? { below: monitor.threshold.below, windowMinutes: monitor.threshold.window_minutes, minSamples: monitor.threshold.min_samples }
      : null,
    createdAt: monitor.createdAt,
    updatedAt: monitor.updatedAt,
    stats: stats
      ? {
          scored: stats.scored,
          skippedBySampling: stats.skipped,
          failed: stats.failed,
          meanLatencyMs: stats.mean_latency_ms,
          meanScore: stats.mean_score,
          promptTokens: stats.prompt_tokens,
          completionTokens: stats.completion_tokens,
          judgeUsage:
            monitor.scorer.kind === 'llm_judge'
              ? toModelTokenUsage({ model: monitor.scorer.model ?? DEFAULT_JUDGE_MODEL, inputTokens: stats.prompt_tokens, outputTokens: stats.completion_tokens })
              : null,
        }
      : null,
  };
}

@ObjectType({ description: 'What a backfill did: the calls of the window it walked, and what the monitor made of those it had not looked at before', simpleResolvers: true })
export class MonitorBackfill {
  @Field(() => Int, { description: 'Ended calls of the window walked' }) calls!: number;
  @Field(() => Int, { description: 'Calls newly scored' }) scored!: number;
  @Field(() => Int, { description: 'Calls newly passed over by sampling' }) skippedBySampling!: number;
  @Field(() => Int, { description: 'Calls newly failed' }) failed!: number;
  @Field(() => Date, { nullable: true, description: 'Null when the whole window was walked; else the start time to backfill from next (a request walks at most 20,000 calls)' })
  resumeFrom!: Date | null;
}
