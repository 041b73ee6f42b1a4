import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { formatNumber } from '../../components/Format';
import { Empty, QueryState } from '../../components/States';
import { EvaluationRunsCompareDocument, type EvaluationRunsCompareQuery } from '../../graphql/generated';
import { Link } from '../../router';
import { OutputDiff } from './OutputDiff';
import { byMetric, formatDelta, formatScore, formatValue, metricId, metricLabel, preview, runLabel, sideOf, versusBaseline, type MetricKey, type Run } from './scores';

type Comparison = NonNullable<NonNullable<EvaluationRunsCompareQuery['project']>['evaluationRunsComparison']>;
type Example = Comparison['examples'][number];
type Result = NonNullable<Example['results'][number]>;

/**
 * Two to four runs side by side: the first is the baseline, every other run's means, scores and outputs are shown
 * against it (higher is better for every metric), and any other run can become the baseline.
 */
export function ComparisonSection({
  entity,
  project,
  runs,
  onBaseline,
  onClear,
}: {
  entity: string;
  project: string;
  runs: string[];
  onBaseline: (id: string) => void;
  onClear: () => void;
}) {
  const [result] = useQuery({ query: EvaluationRunsCompareDocument, variables: { entity, project, runs } });
  const [onlyDifferent, setOnlyDifferent] = useState(false);
  const [showDiff, setShowDiff] = useState(true);

  return (
    <section className="section card" aria-labelledby="compare-heading" data-testid="comparison">
      <div className="card-header">
        <h2 id="compare-heading">Comparison</h2>
        <span className="muted">A is the baseline; every other run is compared with it. Higher is better for every metric.</span>
        <button type="button" className="button button-quiet eval-refresh" onClick={onClear}>
          Clear selection
        </button>
      </div>
      <QueryState result={result} loadingLabel={`Comparing the ${runs.length} runs…`}>
        {(data) => {
          const comparison = data.project?.evaluationRunsComparison;
          if (!comparison) return <Empty title="These runs are not in this project." />;
          const examples = onlyDifferent ? comparison.examples.filter(scoredDifferently) : comparison.examples;
          return (
            <>
              <ComparisonSummary comparison={comparison} onBaseline={onBaseline} />
              <div className="eval-compare-toolbar">
                <h3>Per example</h3>
                <label className="eval-checkbox">
                  <input type="checkbox" checked={onlyDifferent} onChange={(event) => setOnlyDifferent(event.target.checked)} />
                  Only examples the runs score differently
                </label>
                <label className="eval-checkbox">
                  <input type="checkbox" checked={showDiff} onChange={(event) => setShowDiff(event.target.checked)} />
                  Mark words that differ from the baseline’s output
                </label>
                <span className="muted">
                  {examples.length} of {comparison.examples.length} {comparison.examples.length === 1 ? 'example' : 'examples'}
                  {comparison.truncated ? ' (the first 2,000)' : ''}
                </span>
              </div>
              <ComparisonExamples entity={entity} project={project} comparison={comparison} examples={examples} showDiff={showDiff} />
            </>
          );
        }}
      </QueryState>
    </section>
  );
}

function valueOf(result: Result | null | undefined, metric: MetricKey): number | null {
  return result?.values.find((value) => metricId(value) === metricId(metric))?.value ?? null;
}

/** An example some run lacks, or that two runs score differently on some metric. */
function scoredDifferently(example: Example): boolean {
  if (example.results.some((result) => !result)) return true;
  const fingerprints = example.results.map((result) =>
    JSON.stringify(
      [...(result?.values ?? [])]
        .sort(byMetric)
        .map((value) => [metricId(value), value.value]),
    ),
  );
  return new Set(fingerprints).size > 1;
}

function comparisonMetrics(comparison: Comparison): MetricKey[] {
  const seen = new Map<string, MetricKey>();
  for (const run of comparison.runs) for (const score of run.scores) seen.set(metricId(score), score);
  for (const example of comparison.examples) for (const result of example.results) for (const value of result?.values ?? []) if (!seen.has(metricId(value))) seen.set(metricId(value), value);
  return [...seen.values()].sort(byMetric);
}

function RunHeading({ run, index }: { run: Run; index: number }) {
  const side = sideOf(index);
  return (
    <span className="eval-run-heading">
      <span className={`eval-side eval-side-${index}`} aria-hidden="true">
        {side}
      </span>
      <span className="eval-run-heading-text">
        <span className="visually-hidden">Run {side}{index === 0 ? ' (baseline)' : ''}: </span>
        <strong>{run.model}</strong> <span className="muted">{run.evaluation}</span>
        {index === 0 ? <span className="badge eval-baseline-badge">baseline</span> : null}
      </span>
    </span>
  );
}

/** ▲/▼ against the baseline, with words for screen readers. */
function Verdict({ verdict }: { verdict: 'better' | 'worse' | null }) {
  if (!verdict) return null;
  return (
    <span className="eval-verdict">
      <span aria-hidden="true">{verdict === 'better' ? ' ▲' : ' ▼'}</span>
      <span className="visually-hidden"> ({verdict} than the baseline)</span>
    </span>
  );
}

const verdictClass = (verdict: 'better' | 'worse' | null) => (verdict === 'better' ? 'eval-better' : verdict === 'worse' ? 'eval-worse' : '');

function ComparisonSummary({ comparison, onBaseline }: { comparison: Comparison; onBaseline: (id: string) => void }) {
  const metrics = comparisonMetrics(comparison);
  const mean = (run: Run, metric: MetricKey) => run.scores.find((score) => metricId(score) === metricId(metric))?.mean ?? null;
  const [baseline] = comparison.runs;
  return (
    <div className="table-scroll">
      <table className="eval-summary" data-testid="comparison-summary">
        <caption className="visually-hidden">Mean per scorer metric of each run, with the change from the baseline</caption>
        <thead>
          <tr>
            <th scope="col">Scorer metric</th>
            {comparison.runs.map((run, index) => (
              <th key={run.id} scope="col" className="align-right" data-run={run.id}>
                <RunHeading run={run} index={index} />
                {index > 0 ? (
                  <button type="button" className="button button-quiet eval-baseline-button" onClick={() => onBaseline(run.id)} aria-label={`Make baseline: run ${sideOf(index)}, ${runLabel(run)}`}>
                    Make baseline
                  </button>
                ) : null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Examples</th>
            {comparison.runs.map((run) => (
              <td key={run.id} className="align-right">
                {formatNumber(run.exampleCount)}
              </td>
            ))}
          </tr>
          {metrics.map((metric) => {
            const base = baseline ? mean(baseline, metric) : null;
            return (
              <tr key={metricId(metric)} data-metric={metricLabel(metric)}>
                <th scope="row">{metricLabel(metric)}</th>
                {comparison.runs.map((run, index) => {
                  const value = mean(run, metric);
                  const verdict = index === 0 ? null : versusBaseline(value, base);
                  return (
                    <td key={run.id} className={`align-right ${verdictClass(verdict)}`} data-side={sideOf(index)}>
                      {formatScore(value, metric.kind)}
                      {index > 0 && value !== null && base !== null ? <span className="eval-delta"> ({formatDelta(value - base, metric.kind)})</span> : null}
                      <Verdict verdict={verdict} />
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function ComparisonExamples({ entity, project, comparison, examples, showDiff }: { entity: string; project: string; comparison: Comparison; examples: Example[]; showDiff: boolean }) {
  const metrics = useMemo(() => comparisonMetrics(comparison), [comparison]);
  if (examples.length === 0) return <Empty title="No examples to show.">The runs score every example the same.</Empty>;
  const callPath = (callId: string) => `/calls/${encodeURIComponent(entity)}/${encodeURIComponent(project)}/${encodeURIComponent(callId)}`;
  return (
    <div className="table-scroll">
      {/* Fixed layout: the example column keeps its share and every cell wraps, so no text paints over a neighbour. */}
      <table className="eval-examples" data-testid="comparison-examples" data-runs={comparison.runs.length}>
        <caption className="visually-hidden">Each example as every run answered and scored it, against the baseline (run A)</caption>
        <colgroup>
          <col className="eval-example-col" />
          {comparison.runs.map((run) => (
            <col key={run.id} />
          ))}
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Example</th>
            {comparison.runs.map((run, index) => (
              <th key={run.id} scope="col" className="eval-run-col">
                <RunHeading run={run} index={index} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {examples.map((example, row) => {
            const baseline = example.results[0] ?? null;
            return (
              <tr key={example.key} data-example={example.key}>
                <th scope="row" className="eval-example-inputs" title={JSON.stringify(example.inputs)}>
                  {preview(example.inputs, 300)}
                  {example.results.some((result) => !result) ? (
                    <span className="badge">
                      only in {example.results.flatMap((result, index) => (result ? [sideOf(index)] : [])).join(', ')}
                    </span>
                  ) : null}
                </th>
                {example.results.map((result, index) => {
                  const side = sideOf(index);
                  if (!result) {
                    return (
                      <td key={comparison.runs[index]!.id} className="eval-result" data-side={side}>
                        <span className="muted">Not in run {side}</span>
                      </td>
                    );
                  }
                  return (
                    <td key={comparison.runs[index]!.id} className="eval-result" data-side={side}>
                      <div className="eval-output" data-output={side}>
                        <OutputDiff output={result.output} baseline={showDiff && index > 0 && baseline ? baseline.output : undefined} />
                      </div>
                      <ul className="eval-result-scores">
                        {metrics.map((metric) => {
                          const value = valueOf(result, metric);
                          const verdict = index === 0 ? null : versusBaseline(value, valueOf(baseline, metric));
                          return (
                            <li key={metricId(metric)}>
                              <span className="eval-metric-name">{metricLabel(metric)}</span>{' '}
                              <span className={`eval-result-value ${verdictClass(verdict)}`} data-metric={metricLabel(metric)} data-side={side}>
                                {formatValue(value, metric.kind)}
                                <Verdict verdict={verdict} />
                              </span>
                            </li>
                          );
                        })}
                      </ul>
                      <Link className="eval-call-link" to={callPath(result.callId)} aria-label={`Open call of run ${side} for example ${row + 1}`}>
                        Open call
                      </Link>
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
