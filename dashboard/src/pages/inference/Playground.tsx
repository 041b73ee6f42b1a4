import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useClient, useQuery } from 'urql';
import { describeError, type DescribedError } from '../../client';
import { formatDuration, formatNumber } from '../../components/Format';
import {
  DashboardTeamProjectsDocument,
  InferencePlaygroundChunksDocument,
  type ChatMessageInput,
  type InferencePlaygroundChunksSubscriptionVariables,
} from '../../graphql/generated';
import type { CatalogModel } from './Catalog';

type Status = 'idle' | 'streaming' | 'done' | 'stopped' | 'error';

interface Run {
  status: Status;
  text: string;
  chunks: number;
  finishReason: string | null;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
  firstTokenMs: number | null;
  elapsedMs: number | null;
  errors: DescribedError[];
}

const IDLE: Run = { status: 'idle', text: '', chunks: 0, finishReason: null, usage: null, firstTokenMs: null, elapsedMs: null, errors: [] };

/**
 * Streams a chat completion from a catalog model over the graph's `chatCompletionChunks` subscription (graphql-ws):
 * the answer grows as chunks arrive; Stop unsubscribes (the server stops generating and records a 499). Errors are
 * shown as the server sent them (catalogue code and message).
 */
export function Playground({ models, model, onModelChange, team }: { models: readonly CatalogModel[]; model: string; onModelChange: (model: string) => void; team: string | null }) {
  const client = useClient();
  const [system, setSystem] = useState('');
  const [prompt, setPrompt] = useState('Write a haiku about gradient descent.');
  const [maxTokens, setMaxTokens] = useState(128);
  const [temperature, setTemperature] = useState(0.7);
  const [project, setProject] = useState('');
  const [run, setRun] = useState<Run>(IDLE);
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  const [projects] = useQuery({ query: DashboardTeamProjectsDocument, variables: { team: team ?? '' }, pause: !team });

  useEffect(() => () => subscription.current?.unsubscribe(), []);

  function stop(status: Status = 'stopped') {
    subscription.current?.unsubscribe();
    subscription.current = null;
    setRun((current) => (current.status === 'streaming' ? { ...current, status } : current));
  }

  function start(event?: FormEvent) {
    event?.preventDefault();
    if (run.status === 'streaming' || !model || !prompt.trim()) return;
    const messages: ChatMessageInput[] = [];
    if (system.trim()) messages.push({ role: 'SYSTEM', content: system });
    messages.push({ role: 'USER', content: prompt });
    const variables: InferencePlaygroundChunksSubscriptionVariables = {
      project: project || null,
      request: { model, messages, maxTokens, temperature, streamOptions: { includeUsage: true } },
    };
    const started = performance.now();
    stream(variables, started);
  }

  function fail(errors: DescribedError[], started: number) {
    subscription.current?.unsubscribe();
    subscription.current = null;
    setRun((current) => ({ ...current, status: 'error', errors, elapsedMs: performance.now() - started }));
  }

  function stream(variables: InferencePlaygroundChunksSubscriptionVariables, started: number) {
    setRun({ ...IDLE, status: 'streaming' });
    subscription.current = client.subscription(InferencePlaygroundChunksDocument, variables).subscribe((result) => {
      if (result.error) {
        fail(describeError(result.error), started);
        return;
      }
      // urql repeats the last chunk's data with hasNext: false when the server completes the subscription.
      if (result.hasNext === false) {
        subscription.current = null;
        setRun((current) => (current.status === 'streaming' ? { ...current, status: 'done', elapsedMs: performance.now() - started } : current));
        return;
      }
      const chunk = result.data?.chatCompletionChunks;
      if (!chunk) return;
      setRun((current) => {
        if (current.status !== 'streaming') return current;
        const choice = chunk.choices[0];
        const piece = (choice?.message.content ?? '') + (choice?.message.refusal ?? '');
        return {
          ...current,
          text: current.text + piece,
          chunks: current.chunks + 1,
          finishReason: choice?.finishReason ?? current.finishReason,
          usage: chunk.usage ?? current.usage,
          firstTokenMs: current.firstTokenMs ?? (piece ? performance.now() - started : null),
        };
      });
    });
  }

  function onPromptKey(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) start();
  }

  const streaming = run.status === 'streaming';
  const teamProjects = projects.data?.team?.projects ?? [];
  return (
    <div className="playground">
      <form className="playground-form" onSubmit={start} aria-describedby="playground-hint">
        <div className="playground-row">
          <div className="field">
            <label htmlFor="playground-model">Model</label>
            <select id="playground-model" value={model} onChange={(event) => onModelChange(event.target.value)} disabled={streaming}>
              {models.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.id} ({candidate.backend})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="playground-project">Record usage in</label>
            <select id="playground-project" value={project} onChange={(event) => setProject(event.target.value)} disabled={streaming}>
              <option value="">default project</option>
              {teamProjects.map((candidate) => (
                <option key={candidate.fullName} value={candidate.fullName}>
                  {candidate.fullName}
                </option>
              ))}
            </select>
          </div>
          <div className="field field-narrow">
            <label htmlFor="playground-max-tokens">Max tokens</label>
            <input id="playground-max-tokens" type="number" min={1} max={4096} value={maxTokens} onChange={(event) => setMaxTokens(Number(event.target.value))} disabled={streaming} />
          </div>
          <div className="field field-narrow">
            <label htmlFor="playground-temperature">Temperature</label>
            <input
              id="playground-temperature"
              type="number"
              min={0}
              max={2}
              step={0.1}
              value={temperature}
              onChange={(event) => setTemperature(Number(event.target.value))}
              disabled={streaming}
            />
          </div>
        </div>
        <div className="field">
          <label htmlFor="playground-system">System message (optional)</label>
          <textarea id="playground-system" rows={1} value={system} onChange={(event) => setSystem(event.target.value)} disabled={streaming} />
        </div>
        <div className="field">
          <label htmlFor="playground-prompt">Message</label>
          <textarea id="playground-prompt" rows={3} value={prompt} onChange={(event) => setPrompt(event.target.value)} onKeyDown={onPromptKey} disabled={streaming} required />
        </div>
        <div className="playground-actions">
          <button type="submit" className="button button-primary" disabled={streaming || !model || !prompt.trim()}>
            Send
          </button>
          <button type="button" className="button button-danger" onClick={() => stop()} disabled={!streaming}>
            Stop
          </button>
          <span id="playground-hint" className="muted">
            Ctrl+Enter sends. Streams over <code>chatCompletionChunks</code>.
          </span>
        </div>
      </form>

      <section className="playground-output" aria-labelledby="playground-answer-heading" data-status={run.status} data-chunks={run.chunks}>
        <div className="card-header">
          <h3 id="playground-answer-heading">Answer</h3>
          <RunStatus run={run} />
        </div>
        {run.status === 'error' ? (
          <div className="inline-error" role="alert" data-testid="playground-error">
            <ul className="error-list">
              {run.errors.map((error, index) => (
                <li key={index}>
                  {error.code ? <code className="error-code">{error.code}</code> : null}
                  {error.code ? ': ' : null}
                  {error.message}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        <output className="playground-answer" aria-live="polite" aria-busy={streaming} data-testid="playground-answer">
          {run.text || (run.status === 'idle' ? <span className="muted">The answer streams here, token by token.</span> : null)}
          {streaming ? <span className="cursor" aria-hidden="true" /> : null}
        </output>
        {run.status !== 'idle' && run.status !== 'streaming' ? (
          <p className="muted playground-stats">
            {`${run.chunks} chunks`}
            {run.firstTokenMs !== null ? ` · first token after ${formatDuration(run.firstTokenMs)}` : ''}
            {run.elapsedMs !== null ? ` · ${formatDuration(run.elapsedMs)} in all` : ''}
            {run.usage ? ` · ${formatNumber(run.usage.promptTokens)} prompt + ${formatNumber(run.usage.completionTokens)} completion tokens` : ''}
            {run.finishReason ? ` · finished: ${run.finishReason}` : ''}
          </p>
        ) : null}
      </section>
    </div>
  );
}

function RunStatus({ run }: { run: Run }) {
  switch (run.status) {
    case 'idle':
      return null;
    case 'streaming':
      return <span className="status status-running">streaming…</span>;
    case 'done':
      return <span className="status status-ok">done</span>;
    case 'stopped':
      return <span className="status status-warning">stopped</span>;
    case 'error':
      return <span className="status status-error">failed</span>;
  }
}
