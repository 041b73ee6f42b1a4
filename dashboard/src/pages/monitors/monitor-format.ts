import type { MonitorsListQuery } from '../../graphql/generated';

type Scorer = NonNullable<MonitorsListQuery['project']>['monitors'][number]['scorer'];

/** One line saying what a monitor checks, as its settings read: `output ~ /\d+/`, `output = inputs.expected`, … */
export function describeScorer(scorer: Scorer): string {
  switch (scorer.kind) {
    case 'REGEX':
      return `${scorer.field} ~ /${scorer.pattern ?? ''}/`;
    case 'JSON_SCHEMA':
      return `${scorer.field} valid against a JSON Schema`;
    case 'LENGTH':
      return `${scorer.minLength ?? 0} ≤ length(${scorer.field}) ≤ ${scorer.maxLength ?? '∞'}`;
    case 'CONTAINS':
      return `${scorer.field} contains ${scorer.otherField ?? ''}`;
    case 'EQUALS':
      return `${scorer.field} = ${scorer.otherField ?? ''}`;
    case 'LLM_JUDGE':
      return `judge ${scorer.model ?? 'trellis-tiny'}: ${(scorer.prompt ?? '').slice(0, 60)}`;
    default:
      return scorer.kind;
  }
}

/** A mean score with up to three decimals; — when nothing was scored. */
export function formatScore(score: number | null | undefined): string {
  return score === null || score === undefined ? '—' : String(Math.round(score * 1000) / 1000);
}
