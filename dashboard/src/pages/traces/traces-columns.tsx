import { useCallback, useState, type ReactNode } from 'react';
import type { Column } from '../../components/DataTable';
import { formatDuration, formatNumber, ShortId, StatusBadge } from '../../components/Format';
import type { TracesPageQuery } from '../../graphql/generated';
import { Link } from '../../router';
import { callName } from '../Home';
import { formatCost } from '../../components/Cost';

export type TraceRow = NonNullable<TracesPageQuery['project']>['calls']['edges'][number]['node'];

/** The columns of the traces list, in order; `hidden` ones start unticked in the column chooser. */
export interface TracesColumn extends Column<TraceRow> {
  hidden?: boolean;
}

export function tracesColumns(target: { entity: string; project: string } | null): TracesColumn[] {
  return [
    {
      key: 'op',
      header: 'Op name',
      sortField: 'op_name',
      render: (call) =>
        target ? (
          <Link to={`/traces/${encodeURIComponent(target.entity)}/${encodeURIComponent(target.project)}/${encodeURIComponent(call.traceId ?? call.id)}${call.parentId ? `?call=${encodeURIComponent(call.id)}` : ''}`}>
            {callName(call)}
          </Link>
        ) : (
          callName(call)
        ),
    },
    { key: 'status', header: 'Status', sortField: 'summary.weave.status', render: (call) => <StatusBadge status={call.status} /> },
    { key: 'input', header: 'Input', className: 'traces-preview', render: (call) => <Preview text={call.inputPreview} /> },
    { key: 'output', header: 'Output', className: 'traces-preview', render: (call) => <Preview text={call.outputPreview} /> },
    { key: 'tokens', header: 'Tokens', align: 'right', render: (call) => (call.usage.totalTokens ? formatNumber(call.usage.totalTokens) : <Muted />) },
    { key: 'cost', header: 'Cost', align: 'right', render: (call) => (call.usage.totalTokens ? formatCost(call.usage.cost) : <Muted />) },
    { key: 'feedback', header: 'Feedback', render: (call) => <FeedbackCell summary={call.feedbackSummary} /> },
    { key: 'latency', header: 'Latency', sortField: 'summary.weave.latency_ms', align: 'right', render: (call) => formatDuration(call.latencyMs) },
    { key: 'started', header: 'Started at', sortField: 'started_at', render: (call) => <StartTime value={call.startedAt} /> },
    { key: 'user', header: 'User / run', render: (call) => <UserCell call={call} /> },
    { key: 'trace', header: 'Trace id', hidden: true, render: (call) => <ShortId id={call.traceId} /> },
  ];
}

/** "28 Nov, 03:57": day and minute only, so ten columns fit; the exact ISO time is the title. */
function StartTime({ value }: { value: string | null | undefined }) {
  if (!value) return <Muted />;
  const date = new Date(value);
  return (
    <time dateTime={value} title={date.toISOString()}>
      {date.toLocaleString('en-GB', { month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit' })}
    </time>
  );
}

function Muted(): ReactNode {
  return <span className="muted">—</span>;
}

/** One line, cut by the server already; the cell clips it further to its width, the title holds all of it. */
function Preview({ text }: { text: string | null | undefined }) {
  if (!text) return <Muted />;
  return (
    <span className="traces-preview-text" title={text}>
      {text}
    </span>
  );
}

function FeedbackCell({ summary }: { summary: TraceRow['feedbackSummary'] }) {
  const { reactions, notes, scores } = summary;
  if (reactions.length === 0 && notes === 0 && scores.length === 0) return <Muted />;
  return (
    <span className="traces-feedback">
      {reactions.map((reaction) => (
        <span key={reaction.emoji} className="traces-chip" title={`${reaction.count} × ${reaction.emoji}`}>
          {reaction.emoji} {reaction.count}
        </span>
      ))}
      {notes > 0 ? (
        <span className="traces-chip" title={`${notes} note${notes === 1 ? '' : 's'}`}>
          📝 {notes}
        </span>
      ) : null}
      {scores.map((score) => (
        <span key={score.scorer} className="traces-chip traces-score" title={`${score.scorer}: ${JSON.stringify(score.value)}`}>
          {score.scorer} {scoreText(score.value)}
        </span>
      ))}
    </span>
  );
}

/** A scorer's output in a few characters: a number, ✓/✗, or the first such value of an object. */
function scoreText(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (typeof value === 'boolean') return value ? '✓' : '✗';
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const first = Object.values(value).find((item) => typeof item === 'number' || typeof item === 'boolean');
    return first === undefined ? '…' : scoreText(first);
  }
  return value === null || value === undefined ? '—' : String(value).slice(0, 12);
}

/** The username where the graph knows the user (identity's User), else the recorded id, shortened. */
function UserCell({ call }: { call: TraceRow }) {
  if (!call.wbUserId && !call.wbRunId) return <Muted />;
  return (
    <span className="muted">
      {call.user ? <span title={call.wbUserId ?? undefined}>{call.user.username}</span> : <ShortId id={call.wbUserId} />}
      {call.wbRunId ? <> · {call.wbRunId}</> : null}
    </span>
  );
}

const STORAGE_KEY = 'trellis.dashboard.traces.hiddenColumns';

function storedHidden(columns: TracesColumn[]): Set<string> {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored) return new Set(JSON.parse(stored) as string[]);
  } catch {
    // Unreadable or unavailable storage: the defaults.
  }
  return new Set(columns.filter((column) => column.hidden).map((column) => column.key));
}

/** Which columns are hidden, remembered in this browser (localStorage) across visits and tabs. */
export function useHiddenColumns(columns: TracesColumn[]): [Set<string>, (key: string, visible: boolean) => void] {
  const [hidden, setHidden] = useState(() => storedHidden(columns));
  const toggle = useCallback((key: string, visible: boolean) => {
    setHidden((current) => {
      const next = new Set(current);
      if (visible) next.delete(key);
      else next.add(key);
      try {
        localStorage.setItem(STORAGE_KEY, JSON.stringify([...next]));
      } catch {
        // Storage full or disabled: the choice lasts this visit only.
      }
      return next;
    });
  }, []);
  return [hidden, toggle];
}

/** The column chooser: a disclosure with one checkbox per column (the op name always shows). */
export function ColumnChooser({ columns, hidden, onToggle }: { columns: TracesColumn[]; hidden: Set<string>; onToggle: (key: string, visible: boolean) => void }) {
  return (
    <details className="traces-columns">
      <summary>Columns</summary>
      <fieldset>
        <legend className="visually-hidden">Columns to show</legend>
        {columns
          .filter((column) => column.key !== 'op')
          .map((column) => (
            <label key={column.key} className="traces-column-option">
              <input type="checkbox" checked={!hidden.has(column.key)} onChange={(event) => onToggle(column.key, event.target.checked)} />
              {column.header}
            </label>
          ))}
      </fieldset>
    </details>
  );
}
