import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { InlineError } from '../../components/States';
import {
  DatasetEvaluateModelsDocument,
  DatasetEvaluateProgressDocument,
  DatasetEvaluateStartDocument,
  DatasetRowsDocument,
  type DatasetEvaluateStartMutation,
  type MonitorScorerKind,
} from '../../graphql/generated';
import { Link } from '../../router';
import './evaluate.css';

/** How often running evaluation runs are read again. */
const POLL_MS = 1500;
const MODEL_SLOTS = 4;
const MIN_MODELS = 2;

type SplitKind = 'fraction' | 'range' | 'all';
type ScorerChoice = 'EQUALS' | 'CONTAINS' | 'REGEX' | 'LLM_JUDGE';
type Started = DatasetEvaluateStartMutation['evaluateDataset'];

const SCORERS: { value: ScorerChoice; label: string; name: string }[] = [
  { value: 'EQUALS', label: 'Exact match with the expected column', name: 'exact' },
  { value: 'CONTAINS', label: 'Contains the expected column', name: 'contains' },
  { value: 'REGEX', label: 'Matches a pattern (RE2)', name: 'pattern' },
  { value: 'LLM_JUDGE', label: 'LLM judge (trellis-tiny)', name: 'judge' },
];
/** Prompt columns as the traces list's Add to dataset and the Fine-tune form name them, in the order they are tried. */
const PROMPT_COLUMNS = ['input', 'question', 'prompt', 'messages'];
const DEFAULT_JUDGE_PROMPT = 'Is "{{output}}" a correct answer to {{inputs.input}}, expected "{{inputs.expected}}"? Answer 1 for yes, 0 for no:';

/**
 * Evaluate a dataset version: 2 to 4 models — catalog models, and the project's fine-tuned models by their newest
 * checkpoint (`wandb-artifact:///…:latest`) or their `production` alias — answer a split of its rows and one scorer
 * scores them (evaluateDataset; the platform runs it). The runs' progress is shown until they end, with a link to
 * the Evaluations page comparing them.
 */
export function Evaluate({ entity, project, dataset, version, tableDigest }: { entity: string; project: string; dataset: string; version: number; tableDigest: string | null }) {
  const [models] = useQuery({ query: DatasetEvaluateModelsDocument, variables: { entity, project } });
  // The version's first row names its columns: the prompt column defaults to one of them.
  const [firstRow] = useQuery({ query: DatasetRowsDocument, variables: { entity, project, digest: tableDigest ?? '', first: 1 }, pause: !tableDigest });
  const [split, setSplit] = useState<SplitKind>('fraction');
  const [fraction, setFraction] = useState('0.5');
  const [startRow, setStartRow] = useState('0');
  const [endRow, setEndRow] = useState('');
  const [chosen, setChosen] = useState<string[]>(['trellis-tiny', '', '', '']);
  const [promptColumn, setPromptColumn] = useState<string | null>(null);
  const [expectedColumn, setExpectedColumn] = useState('expected');
  const [scorer, setScorer] = useState<ScorerChoice>('EQUALS');
  const [pattern, setPattern] = useState('');
  const [judgePrompt, setJudgePrompt] = useState(DEFAULT_JUDGE_PROMPT);
  const [started, setStarted] = useState<Started | null>(null);
  const [result, start] = useMutation(DatasetEvaluateStartDocument);

  const options = modelOptions(entity, project, models.data);
  const columns = Object.keys((firstRow.data?.project?.traceTableRows.edges[0]?.node.val as Record<string, unknown> | null) ?? {});
  const prompt = promptColumn ?? PROMPT_COLUMNS.find((column) => columns.includes(column)) ?? columns[0] ?? 'input';
  const picked = chosen.filter(Boolean);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const kind = scorer as MonitorScorerKind;
    const settings = scorer === 'REGEX' ? { pattern } : scorer === 'LLM_JUDGE' ? { prompt: judgePrompt, maxTokens: 4 } : {};
    const outcome = await start({
      entity,
      project,
      input: {
        dataset: `${dataset}:v${version}`,
        split: split === 'fraction' ? { heldOutFraction: Number(fraction) } : split === 'range' ? { startRow: Number(startRow), endRow: endRow === '' ? null : Number(endRow) } : null,
        models: picked,
        scorers: [{ name: SCORERS.find((entry) => entry.value === scorer)!.name, scorer: { kind, ...settings } }],
        promptColumn: prompt,
        expectedColumn,
      },
    });
    if (outcome.data) setStarted(outcome.data.evaluateDataset);
  };

  return (
    <section className="dataset-evaluate" aria-labelledby="evaluate-heading">
      <h3 id="evaluate-heading" className="weave-subheading">
        Evaluate v{version}
      </h3>
      <p className="hint">
        Each model answers the chosen rows (the prompt column as the conversation, at temperature 0) and the scorer compares the answers with the expected
        column; the runs are recorded as evaluation runs of this project.
      </p>
      <form className="dataset-evaluate-form" onSubmit={(event) => void onSubmit(event)} aria-label={`Evaluate ${dataset} v${version}`}>
        <fieldset className="dataset-evaluate-group">
          <legend>Rows</legend>
          <div className="field">
            <label htmlFor="evaluate-split">Split</label>
            <select id="evaluate-split" value={split} onChange={(event) => setSplit(event.target.value as SplitKind)}>
              <option value="fraction">The last fraction (held out)</option>
              <option value="range">A row range</option>
              <option value="all">Every row</option>
            </select>
          </div>
          {split === 'fraction' ? (
            <div className="field">
              <label htmlFor="evaluate-fraction">Held-out fraction</label>
              <input id="evaluate-fraction" type="number" min={0.01} max={1} step={0.01} value={fraction} onChange={(event) => setFraction(event.target.value)} />
            </div>
          ) : null}
          {split === 'range' ? (
            <>
              <div className="field">
                <label htmlFor="evaluate-start">From row</label>
                <input id="evaluate-start" type="number" min={0} value={startRow} onChange={(event) => setStartRow(event.target.value)} />
              </div>
              <div className="field">
                <label htmlFor="evaluate-end">Before row</label>
                <input id="evaluate-end" type="number" min={1} value={endRow} placeholder="the end" onChange={(event) => setEndRow(event.target.value)} />
              </div>
            </>
          ) : null}
          <div className="field">
            <label htmlFor="evaluate-prompt">Prompt column</label>
            <input id="evaluate-prompt" value={prompt} onChange={(event) => setPromptColumn(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="evaluate-expected">Expected column</label>
            <input id="evaluate-expected" value={expectedColumn} onChange={(event) => setExpectedColumn(event.target.value)} />
          </div>
        </fieldset>
        <fieldset className="dataset-evaluate-group">
          <legend>Models (2 to 4, the first is the baseline)</legend>
          {Array.from({ length: MODEL_SLOTS }, (_, slot) => (
            <div className="field" key={slot}>
              <label htmlFor={`evaluate-model-${slot}`}>Model {slot + 1}</label>
              <select
                id={`evaluate-model-${slot}`}
                value={chosen[slot]}
                onChange={(event) => setChosen(chosen.map((model, index) => (index === slot ? event.target.value : model)))}
              >
                <option value="">{slot < MIN_MODELS ? 'Choose a model' : 'None'}</option>
                {options.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </fieldset>
        <fieldset className="dataset-evaluate-group">
          <legend>Scorer</legend>
          <div className="field">
            <label htmlFor="evaluate-scorer">Check</label>
            <select id="evaluate-scorer" value={scorer} onChange={(event) => setScorer(event.target.value as ScorerChoice)}>
              {SCORERS.map((entry) => (
                <option key={entry.value} value={entry.value}>
                  {entry.label}
                </option>
              ))}
            </select>
          </div>
          {scorer === 'REGEX' ? (
            <div className="field">
              <label htmlFor="evaluate-pattern">Pattern</label>
              <input id="evaluate-pattern" value={pattern} onChange={(event) => setPattern(event.target.value)} />
            </div>
          ) : null}
          {scorer === 'LLM_JUDGE' ? (
            <div className="field dataset-evaluate-wide">
              <label htmlFor="evaluate-judge">Judge prompt</label>
              <textarea id="evaluate-judge" rows={3} value={judgePrompt} onChange={(event) => setJudgePrompt(event.target.value)} />
            </div>
          ) : null}
        </fieldset>
        <div>
          <button type="submit" className="button button-primary" disabled={result.fetching || picked.length < MIN_MODELS}>
            Evaluate
          </button>
        </div>
      </form>
      {result.error ? <InlineError error={result.error} /> : null}
      {started ? <EvaluationProgress key={started.runs.map((run) => run.id).join()} entity={entity} project={project} started={started} /> : null}
    </section>
  );
}

interface ModelOption {
  value: string;
  label: string;
}

/** The catalog's models, then each fine-tuned model's newest checkpoint (training chat) and its production alias (inference) when it has one. */
function modelOptions(entity: string, project: string, data: { inferenceModels: { id: string }[]; project?: { trainingModels: { nodes: { name: string; checkpoints: { nodes: { step: number; aliases: string[] }[] } }[] } } | null } | undefined): ModelOption[] {
  if (!data) return [{ value: 'trellis-tiny', label: 'trellis-tiny' }];
  const catalog = data.inferenceModels.filter((model) => !model.id.includes(':')).map((model) => ({ value: model.id, label: model.id }));
  const tuned = (data.project?.trainingModels.nodes ?? []).flatMap((model) => {
    const newest = model.checkpoints.nodes[0];
    if (!newest) return [];
    const latest = { value: `wandb-artifact:///${entity}/${project}/${model.name}:latest`, label: `${model.name} — newest checkpoint (step ${newest.step})` };
    const production = { value: `${entity}/${project}/${model.name}:production`, label: `${model.name}:production` };
    return newest.aliases.includes('production') ? [latest, production] : [latest];
  });
  return [...catalog, ...tuned];
}

function EvaluationProgress({ entity, project, started }: { entity: string; project: string; started: Started }) {
  const ids = started.runs.map((run) => run.id);
  const [result, reexecute] = useQuery({ query: DatasetEvaluateProgressDocument, variables: { entity, project, runs: ids }, requestPolicy: 'network-only' });
  const runs = result.data?.project?.evaluationRunsComparison.runs ?? [];
  const running = runs.length === 0 || runs.some((run) => run.status === 'RUNNING');
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(() => reexecute({ requestPolicy: 'network-only' }), POLL_MS);
    return () => clearTimeout(timer);
  }, [running, result.data, reexecute]);
  const rows = started.rowEnd - started.rowStart;
  const compare = `/evaluations?project=${encodeURIComponent(`${entity}/${project}`)}&runs=${ids.map(encodeURIComponent).join(',')}`;
  return (
    <div className="dataset-evaluate-progress" data-testid="evaluation-progress">
      <p role="status">
        {running ? 'Evaluating' : 'Evaluated'} rows {started.rowStart}–{started.rowEnd - 1} of v{started.datasetVersion.slice(1)} with {ids.length} models
        {running ? '…' : '.'}
      </p>
      <table className="dataset-evaluate-runs">
        <caption className="visually-hidden">The evaluation&apos;s runs, one per model</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Status</th>
            <th scope="col">Rows answered</th>
            <th scope="col">Mean score</th>
          </tr>
        </thead>
        <tbody>
          {started.runs.map((run) => {
            const progress = runs.find((candidate) => candidate.id === run.id);
            const score = progress?.scores[0];
            return (
              <tr key={run.id}>
                <td>
                  <code>{run.model}</code>
                </td>
                <td>
                  {progress?.status ?? 'RUNNING'}
                  {progress?.exception ? <span className="muted"> — {progress.exception}</span> : null}
                </td>
                <td>
                  <progress max={rows} value={progress?.exampleCount ?? 0} aria-label={`Rows answered by ${run.model}`} /> {progress?.exampleCount ?? 0} / {rows}
                </td>
                <td>{score ? `${score.scorer}: ${score.mean.toFixed(2)} (${score.count})` : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Link to={compare}>Compare the runs on the Evaluations page</Link>
      {result.error ? <InlineError error={result.error} /> : null}
    </div>
  );
}
