import { useEffect, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useQuery } from 'urql';
import { formatDuration, formatNumber } from '../../components/Format';
import { DashboardTeamProjectsDocument, InferencePlaygroundCheckpointsDocument, type ChatCompletionRequestInput, type ChatMessageInput } from '../../graphql/generated';
import type { CatalogModel } from './Catalog';
import { DEFAULT_PARAMETERS, takePlaygroundDraft, type PlaygroundMessage, type PlaygroundParameters } from './playground-draft';
import { useChatStream, type StreamRun } from './use-chat-stream';

const SIDES = ['A', 'B'] as const;
type Side = 0 | 1;

/** A side's conversation so far, and where the answer of its latest run sits in it (null until that run ends). */
interface Conversation {
  messages: PlaygroundMessage[];
  answerAt: number | null;
}
const EMPTY_CONVERSATION: Conversation = { messages: [], answerAt: null };

/**
 * A multi-turn chat with a catalog model or a training checkpoint, streamed over graphql-ws, optionally beside a second
 * model or checkpoint given the same messages (each side keeps its own answers, so the two conversations may
 * diverge). The common sampling parameters apply to both. Another page (a traced chat call) can hand it a
 * conversation to continue (playground-draft.ts).
 */
export function Playground({
  models,
  model,
  onModelChange,
  team,
  refreshed,
}: {
  models: readonly CatalogModel[];
  model: string;
  onModelChange: (model: string) => void;
  team: string | null;
  /** Bumped by the page's Refresh: checkpoints are listed again. */
  refreshed: number;
}) {
  const [system, setSystem] = useState('');
  const [prompt, setPrompt] = useState('Write a haiku about gradient descent.');
  const [parameters, setParameters] = useState<PlaygroundParameters>(DEFAULT_PARAMETERS);
  const [project, setProject] = useState('');
  const [comparing, setComparing] = useState(false);
  const [modelB, setModelB] = useState('');
  const [conversations, setConversations] = useState<[Conversation, Conversation]>([EMPTY_CONVERSATION, EMPTY_CONVERSATION]);
  const [projects] = useQuery({ query: DashboardTeamProjectsDocument, variables: { team: team ?? '' }, pause: !team });
  const checkpoints = useCheckpoints(project, refreshed);

  // A run that ends with text (done, or stopped part-way) leaves its answer in that side's conversation.
  const keepAnswer = (side: Side) => (run: StreamRun) => {
    if (run.status === 'error' || !run.text) return;
    setConversations((current) => {
      const next: [Conversation, Conversation] = [...current];
      const messages = [...current[side].messages, { role: 'ASSISTANT' as const, content: run.text }];
      next[side] = { messages, answerAt: messages.length - 1 };
      return next;
    });
  };
  const streams = [useChatStream(keepAnswer(0)), useChatStream(keepAnswer(1))] as const;

  // A conversation handed over by another page ("Open in playground" on a traced call), taken once.
  useEffect(() => {
    const draft = takePlaygroundDraft();
    if (!draft) return;
    setSystem(draft.system ?? '');
    setParameters({ ...DEFAULT_PARAMETERS, ...draft.parameters });
    setConversations([{ messages: draft.messages, answerAt: null }, { messages: draft.messages, answerAt: null }]);
    setPrompt('');
    if (draft.model && models.some((candidate) => candidate.id === draft.model)) onModelChange(draft.model);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on arrival
  }, []);

  useEffect(() => {
    if (!modelB && models.length > 0) setModelB(models[Math.min(1, models.length - 1)]!.id);
  }, [models, modelB]);

  const activeSides: Side[] = comparing ? [0, 1] : [0];
  const streaming = activeSides.some((side) => streams[side].run.status === 'streaming');
  const modelOf = (side: Side) => (side === 0 ? model : modelB);
  const lastRole = conversations[0].messages.at(-1)?.role;
  // Sendable: a new message, or a conversation that ends with the user's turn (a handed-over call, a failed run).
  const canSend = !streaming && activeSides.every((side) => modelOf(side)) && (prompt.trim() !== '' || lastRole === 'USER');

  function send(event?: FormEvent) {
    event?.preventDefault();
    if (!canSend) return;
    const userMessage: PlaygroundMessage | null = prompt.trim() ? { role: 'USER', content: prompt } : null;
    const next: [Conversation, Conversation] = [...conversations];
    for (const side of activeSides) {
      const messages = userMessage ? [...conversations[side].messages, userMessage] : conversations[side].messages;
      next[side] = { messages, answerAt: null };
      streams[side].start(chatRequest(modelOf(side), system, messages, parameters), project || null);
    }
    setConversations(next);
    setPrompt('');
  }

  function stop() {
    for (const side of activeSides) streams[side].stop();
  }

  function clear() {
    setConversations([EMPTY_CONVERSATION, EMPTY_CONVERSATION]);
  }

  function toggleComparing(on: boolean) {
    // The second side starts from the first side's conversation.
    if (on) setConversations((current) => [current[0], { ...current[0] }]);
    setComparing(on);
  }

  function onPromptKey(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) send();
  }

  const teamProjects = projects.data?.team?.projects ?? [];
  const setParameter = <K extends keyof PlaygroundParameters>(name: K, value: PlaygroundParameters[K]) => setParameters((current) => ({ ...current, [name]: value }));
  return (
    <div className={comparing ? 'playground playground-comparing' : 'playground'} id="playground">
      <form className="playground-form" onSubmit={send} aria-describedby="playground-hint">
        <div className="playground-row">
          <ModelSelect id="playground-model" label={comparing ? 'Model A' : 'Model'} value={model} onChange={onModelChange} models={models} checkpoints={checkpoints} disabled={streaming} />
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
        </div>
        <div className="playground-row">
          <div className="field field-check">
            <label>
              <input type="checkbox" checked={comparing} onChange={(event) => toggleComparing(event.target.checked)} disabled={streaming} /> Compare with a second model
            </label>
          </div>
          {comparing ? <ModelSelect id="playground-model-b" label="Model B" value={modelB} onChange={setModelB} models={models} checkpoints={checkpoints} disabled={streaming} /> : null}
        </div>
        {!project ? <p className="muted playground-note">Pick a project to offer its training checkpoints as well.</p> : null}
        <fieldset className="playground-parameters">
          <legend>Parameters</legend>
          <NumberField id="playground-max-tokens" label="Max tokens" value={parameters.maxTokens} min={1} max={4096} step={1} onChange={(value) => setParameter('maxTokens', value ?? 1)} disabled={streaming} />
          <NumberField id="playground-temperature" label="Temperature" value={parameters.temperature} min={0} max={2} step={0.1} onChange={(value) => setParameter('temperature', value ?? 0)} disabled={streaming} />
          <NumberField id="playground-top-p" label="Top p" value={parameters.topP} min={0} max={1} step={0.05} placeholder="model default" onChange={(value) => setParameter('topP', value)} disabled={streaming} />
          <NumberField id="playground-seed" label="Seed" value={parameters.seed} step={1} placeholder="random" onChange={(value) => setParameter('seed', value)} disabled={streaming} />
          <div className="field playground-stop">
            <label htmlFor="playground-stop">Stop sequences (one per line)</label>
            <textarea id="playground-stop" rows={1} value={parameters.stop} onChange={(event) => setParameter('stop', event.target.value)} disabled={streaming} />
          </div>
        </fieldset>
        <div className="field">
          <label htmlFor="playground-system">System message (optional)</label>
          <textarea id="playground-system" rows={1} value={system} onChange={(event) => setSystem(event.target.value)} disabled={streaming} />
        </div>
        <div className="field">
          <label htmlFor="playground-prompt">Message</label>
          <textarea id="playground-prompt" rows={3} value={prompt} onChange={(event) => setPrompt(event.target.value)} onKeyDown={onPromptKey} disabled={streaming} />
        </div>
        <div className="playground-actions">
          <button type="submit" className="button button-primary" disabled={!canSend}>
            Send
          </button>
          <button type="button" className="button button-danger" onClick={stop} disabled={!streaming}>
            Stop
          </button>
          <button type="button" className="button" onClick={clear} disabled={streaming || conversations.every((conversation) => conversation.messages.length === 0)}>
            Clear conversation
          </button>
          <span id="playground-hint" className="muted">
            Ctrl+Enter sends. Each answer joins the conversation; the next message continues it.
          </span>
        </div>
      </form>

      <div className="playground-sides">
        {activeSides.map((side) => (
          <SideOutput key={side} side={side} comparing={comparing} model={modelOf(side)} conversation={conversations[side]} run={streams[side].run} />
        ))}
      </div>
    </div>
  );
}

/** The graph's request for one side: the conversation, the system message first, and the parameters that are set. */
function chatRequest(model: string, system: string, conversation: PlaygroundMessage[], parameters: PlaygroundParameters): ChatCompletionRequestInput {
  const messages: ChatMessageInput[] = [];
  if (system.trim()) messages.push({ role: 'SYSTEM', content: system });
  messages.push(...conversation.map(({ role, content, name, toolCallId, toolCalls }) => ({ role, content, name, toolCallId, toolCalls })));
  const stop = parameters.stop.split('\n').filter((line) => line !== '');
  return {
    model,
    messages,
    maxTokens: parameters.maxTokens,
    temperature: parameters.temperature,
    ...(parameters.topP !== null ? { topP: parameters.topP } : {}),
    ...(parameters.seed !== null ? { seed: parameters.seed } : {}),
    ...(stop.length > 0 ? { stop } : {}),
    streamOptions: { includeUsage: true },
  };
}

interface CheckpointOption {
  id: string;
  label: string;
}

/**
 * The newest checkpoints of the project's trainable models, as the training family names them, each model's step 0
 * (its base model, before any training) last: comparing a checkpoint with where it started is the common question.
 */
function useCheckpoints(project: string, refreshed: number): CheckpointOption[] {
  const [entity, name] = project.split('/');
  // Checkpoints appear as jobs run elsewhere: ask again each time the project is chosen or the page refreshed.
  const [result, refetch] = useQuery({
    query: InferencePlaygroundCheckpointsDocument,
    variables: { entity: entity ?? '', name: name ?? '' },
    pause: !entity || !name,
    requestPolicy: 'cache-and-network',
  });
  useEffect(() => {
    if (refreshed > 0 && entity && name) refetch({ requestPolicy: 'network-only' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on a refresh only
  }, [refreshed]);
  const trainingModels = result.data?.project?.trainingModels.edges.map((edge) => edge.node) ?? [];
  const idOf = (model: string, step: number) => `wandb-artifact:///${project}/${model}:step${step}`;
  return trainingModels.flatMap((trainingModel) => [
    ...trainingModel.checkpoints.nodes
      .filter((checkpoint) => checkpoint.step !== 0)
      .map((checkpoint) => ({
        id: idOf(trainingModel.name, checkpoint.step),
        label: `${trainingModel.name} · step ${checkpoint.step}${checkpoint.aliases.length > 0 ? ` (${checkpoint.aliases.join(', ')})` : ''}`,
      })),
    { id: idOf(trainingModel.name, 0), label: `${trainingModel.name} · step 0 (base model)` },
  ]);
}

function ModelSelect(props: { id: string; label: string; value: string; onChange(value: string): void; models: readonly CatalogModel[]; checkpoints: CheckpointOption[]; disabled: boolean }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(event) => props.onChange(event.target.value)} disabled={props.disabled}>
        <optgroup label="Catalog models">
          {props.models.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.id} ({candidate.backend})
            </option>
          ))}
        </optgroup>
        {props.checkpoints.length > 0 ? (
          <optgroup label="Training checkpoints">
            {props.checkpoints.map((checkpoint) => (
              <option key={checkpoint.id} value={checkpoint.id}>
                {checkpoint.label}
              </option>
            ))}
          </optgroup>
        ) : null}
      </select>
    </div>
  );
}

/** A number input whose empty value means "not set" (null). */
function NumberField(props: { id: string; label: string; value: number | null; min?: number; max?: number; step: number; placeholder?: string; onChange(value: number | null): void; disabled: boolean }) {
  return (
    <div className="field field-narrow">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="number"
        min={props.min}
        max={props.max}
        step={props.step}
        placeholder={props.placeholder}
        value={props.value ?? ''}
        onChange={(event) => props.onChange(event.target.value === '' ? null : Number(event.target.value))}
        disabled={props.disabled}
      />
    </div>
  );
}

const ROLE_LABELS: Record<string, string> = { SYSTEM: 'System', DEVELOPER: 'Developer', USER: 'User', ASSISTANT: 'Assistant', TOOL: 'Tool', FUNCTION: 'Function' };

/** One side: the conversation before its latest answer, then that answer as it streams, and the run's figures. */
function SideOutput({ side, comparing, model, conversation, run }: { side: Side; comparing: boolean; model: string; conversation: Conversation; run: StreamRun }) {
  const history = conversation.answerAt === null ? conversation.messages : conversation.messages.slice(0, conversation.answerAt);
  const headingId = side === 0 ? 'playground-answer-heading' : 'playground-answer-heading-b';
  const streaming = run.status === 'streaming';
  return (
    <section className="playground-output" aria-labelledby={headingId} data-side={SIDES[side]} data-status={run.status} data-chunks={run.chunks}>
      <div className="card-header">
        <h3 id={headingId}>{comparing ? `Model ${SIDES[side]}` : 'Conversation'}</h3>
        {comparing ? <code className="playground-model-name">{model}</code> : null}
        <RunStatus run={run} />
      </div>
      {history.length > 0 ? (
        <ol className="playground-transcript" aria-label={`Conversation so far${comparing ? ` with model ${SIDES[side]}` : ''}`}>
          {history.map((message, index) => (
            <li key={index} className={`playground-message playground-message-${message.role.toLowerCase()}`}>
              <span className="playground-role">{ROLE_LABELS[message.role] ?? message.role}</span>
              <span className="playground-content">{messageText(message)}</span>
            </li>
          ))}
        </ol>
      ) : null}
      {run.status === 'error' ? (
        <div className="inline-error" role="alert" data-testid={side === 0 ? 'playground-error' : 'playground-error-b'}>
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
      <div className="playground-message playground-message-assistant playground-latest">
        <span className="playground-role">Assistant</span>
        <output className="playground-answer" aria-live="polite" aria-busy={streaming} data-testid={side === 0 ? 'playground-answer' : 'playground-answer-b'}>
          {run.text || (run.status === 'idle' ? <span className="muted">The answer streams here, token by token.</span> : null)}
          {streaming ? <span className="cursor" aria-hidden="true" /> : null}
        </output>
      </div>
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
  );
}

/** A message's text; tool calls (which have no text) as `name(arguments)`. */
function messageText(message: PlaygroundMessage): string {
  const calls = (message.toolCalls ?? []).map((call) => `${call.function?.name ?? 'tool'}(${call.function?.arguments ?? ''})`);
  return [message.content ?? '', ...calls].filter((part) => part !== '').join('\n');
}

function RunStatus({ run }: { run: StreamRun }) {
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
