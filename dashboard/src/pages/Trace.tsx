import { createContext, useCallback, useContext, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from 'urql';
import { formatDuration, formatNumber, ShortId, StatusBadge, Time } from '../components/Format';
import { JsonViewer } from '../components/JsonViewer';
import { PageHeader } from '../components/PageHeader';
import { Empty, ErrorState, Loading } from '../components/States';
import { TraceCallChildrenDocument, TraceCallDetailDocument, TraceRootsDocument, type TraceTreeCallFragment } from '../graphql/generated';
import { href, Link, useSearchParams } from '../router';
import type { PageProps } from '../routes';
import { callName } from './Home';

/**
 * One trace: its call tree (each call's children read on expand through the graph's `children` connection) and the
 * selected call in full. Keyboard: the tree follows the WAI-ARIA tree pattern (↑/↓ move, → expands or enters, ←
 * collapses or goes to the parent, Home/End, Enter selects). The graph has no subscription for calls, so a trace
 * with a call still running is re-read every 2 s until everything has ended.
 */
const POLL_MS = 2000;

interface TreeContextValue {
  entity: string;
  project: string;
  selected: string | null;
  select(id: string): void;
  /** Increments while the trace runs: every loaded level re-reads its children. */
  tick: number;
}
const TreeContext = createContext<TreeContextValue | null>(null);
const useTree = () => useContext(TreeContext)!;

export default function Trace({ params }: PageProps) {
  const entity = params.entity ?? '';
  const project = params.project ?? '';
  const traceId = params.traceId ?? '';
  const [search, setSearch] = useSearchParams();
  const selectedParam = search.get('call');
  const [tick, setTick] = useState(0);

  const [result, reexecute] = useQuery({ query: TraceRootsDocument, variables: { entity, project, traceId } });
  const roots = result.data?.project?.roots.nodes ?? [];
  const running = (result.data?.project?.running ?? 0) > 0;
  const selected = selectedParam ?? roots[0]?.id ?? null;

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      reexecute({ requestPolicy: 'network-only' });
      setTick((value) => value + 1);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [running, reexecute]);

  const select = useCallback((id: string) => setSearch({ call: id }), [setSearch]);
  const fullName = `${entity}/${project}`;
  const title = roots[0] ? callName(roots[0]) : 'Trace';

  return (
    <>
      <PageHeader
        title={title}
        description={
          <>
            Trace <ShortId id={traceId} /> in <Link to={href('/traces', { project: fullName })}>{fullName}</Link>
            {result.data?.project ? <> · {formatNumber(result.data.project.callsInTrace)} calls</> : null}
            {running ? (
              <>
                {' '}
                · <span className="status status-running" role="status">running — refreshing every {POLL_MS / 1000} s</span>
              </>
            ) : null}
          </>
        }
        actions={
          <Link to={href('/traces', { project: fullName })} className="button">
            ← All traces
          </Link>
        }
      />
      {result.error && !result.data ? (
        <ErrorState error={result.error} title="Could not load this trace" />
      ) : !result.data ? (
        <Loading label="Loading the trace…" />
      ) : !result.data.project ? (
        <Empty title={`There is no project ${fullName} you can see.`} />
      ) : roots.length === 0 ? (
        <Empty title="No calls in this trace.">The trace id may be wrong, or its calls have not arrived yet.</Empty>
      ) : (
        <TreeContext.Provider value={{ entity, project, selected, select, tick }}>
          <div className="trace-layout">
            <section className="card trace-tree-card" aria-labelledby="tree-heading">
              <h2 id="tree-heading">Call tree</h2>
              <CallTree roots={roots} />
            </section>
            <section className="card trace-detail-card" aria-labelledby="detail-heading">
              {selected ? <CallDetail id={selected} tick={tick} /> : <Empty title="Select a call." />}
            </section>
          </div>
        </TreeContext.Provider>
      )}
    </>
  );
}

function CallTree({ roots }: { roots: TraceTreeCallFragment[] }) {
  const tree = useRef<HTMLUListElement>(null);
  // ↑/↓/Home/End move between the visible items in document order; items handle → and ← themselves.
  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    if (!['ArrowUp', 'ArrowDown', 'Home', 'End'].includes(event.key)) return;
    const items = [...(tree.current?.querySelectorAll<HTMLElement>('[role="treeitem"]') ?? [])].filter((item) => item.offsetParent !== null);
    const index = items.indexOf(document.activeElement as HTMLElement);
    const next =
      event.key === 'Home' ? 0 : event.key === 'End' ? items.length - 1 : event.key === 'ArrowUp' ? Math.max(0, index - 1) : Math.min(items.length - 1, index + 1);
    items[next]?.focus();
    event.preventDefault();
  };
  return (
    <ul className="call-tree" role="tree" aria-label="Call tree" ref={tree} onKeyDown={onKeyDown} data-testid="call-tree">
      {roots.map((root, index) => (
        <TreeItem key={root.id} call={root} level={1} initiallyExpanded focusable={index === 0} />
      ))}
    </ul>
  );
}

function TreeItem({ call, level, initiallyExpanded, focusable }: { call: TraceTreeCallFragment; level: number; initiallyExpanded: boolean; focusable: boolean }) {
  const { selected, select } = useTree();
  const hasChildren = call.firstChild.nodes.length > 0;
  const [expanded, setExpanded] = useState(initiallyExpanded && hasChildren);
  const self = useRef<HTMLDivElement>(null);
  const isSelected = selected === call.id;

  // The treeitem is the row only, so its name is the row's text; its group of children is the next sibling
  // (levels are given by aria-level), inside a presentational <li>.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'ArrowRight') {
      if (hasChildren && !expanded) setExpanded(true);
      else if (expanded) self.current?.parentElement?.querySelector<HTMLElement>(':scope > [role="group"] [role="treeitem"]')?.focus();
      event.preventDefault();
      event.stopPropagation();
    } else if (event.key === 'ArrowLeft') {
      if (expanded) setExpanded(false);
      else self.current?.parentElement?.parentElement?.closest('li')?.querySelector<HTMLElement>(':scope > [role="treeitem"]')?.focus();
      event.preventDefault();
      event.stopPropagation();
    } else if (event.key === 'Enter' || event.key === ' ') {
      select(call.id);
      event.preventDefault();
      event.stopPropagation();
    }
  };

  return (
    <li role="none" className="tree-node">
      <div
        ref={self}
        role="treeitem"
        aria-level={level}
        aria-expanded={hasChildren ? expanded : undefined}
        aria-selected={isSelected}
        tabIndex={isSelected || (selected === null && focusable) ? 0 : -1}
        className={`tree-row${isSelected ? ' selected' : ''}`}
        data-call-id={call.id}
        onKeyDown={onKeyDown}
        onClick={() => select(call.id)}
      >
        {hasChildren ? (
          <span
            className="tree-toggle"
            aria-hidden="true"
            onClick={(event) => {
              event.stopPropagation();
              setExpanded(!expanded);
            }}
          >
            {expanded ? '▾' : '▸'}
          </span>
        ) : (
          <span className="tree-toggle tree-leaf" aria-hidden="true">
            •
          </span>
        )}
        <span className="tree-label">{callName(call)}</span>{' '}
        <StatusBadge status={call.status} />{' '}
        <span className="tree-latency">{formatDuration(call.latencyMs)}</span>
      </div>
      {hasChildren && expanded ? <Children parentId={call.id} level={level + 1} /> : null}
    </li>
  );
}

/** A call's children, 100 at a time (the connection's pages, appended as "More calls…" is used). */
function Children({ parentId, level }: { parentId: string; level: number }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return (
    <ul role="group" className="tree-group">
      {cursors.map((after, index) => (
        <ChildrenPage
          key={after ?? ''}
          parentId={parentId}
          level={level}
          after={after}
          onMore={index === cursors.length - 1 ? (cursor) => setCursors((current) => [...current, cursor]) : undefined}
        />
      ))}
    </ul>
  );
}

function ChildrenPage({ parentId, level, after, onMore }: { parentId: string; level: number; after: string | null; onMore?: (cursor: string) => void }) {
  const { entity, project, tick } = useTree();
  const [result, reexecute] = useQuery({ query: TraceCallChildrenDocument, variables: { entity, project, id: parentId, after } });
  useEffect(() => {
    if (tick > 0) reexecute({ requestPolicy: 'network-only' });
  }, [tick, reexecute]);
  if (result.error && !result.data) {
    return (
      <li role="none">
        <ErrorState error={result.error} title="Could not load the child calls" />
      </li>
    );
  }
  const children = result.data?.project?.call?.children;
  if (!children) {
    return (
      <li role="none" className="tree-loading muted">
        Loading…
      </li>
    );
  }
  const endCursor = children.pageInfo.endCursor;
  return (
    <>
      {children.nodes.map((child) => (
        <TreeItem key={child.id} call={child} level={level} initiallyExpanded={level < 3} focusable={false} />
      ))}
      {onMore && children.pageInfo.hasNextPage && endCursor ? (
        <li role="none">
          <button type="button" className="link-button" onClick={() => onMore(endCursor)}>
            More calls…
          </button>
        </li>
      ) : null}
    </>
  );
}

function CallDetail({ id, tick }: { id: string; tick: number }) {
  const { entity, project } = useTree();
  const [result, reexecute] = useQuery({ query: TraceCallDetailDocument, variables: { entity, project, id } });
  useEffect(() => {
    if (tick > 0) reexecute({ requestPolicy: 'network-only' });
  }, [tick, reexecute]);
  if (result.error && !result.data) return <ErrorState error={result.error} title="Could not load this call" />;
  if (!result.data) return <Loading label="Loading the call…" />;
  const call = result.data.project?.call;
  if (!call) return <Empty title="This call does not exist (any more)." />;
  return (
    <div className="call-detail" data-testid="call-detail" data-call-id={call.id}>
      <div className="card-header">
        <h2 id="detail-heading">{callName(call)}</h2>
        <StatusBadge status={call.status} />
        {call.kind !== 'call' ? <span className="badge">{call.kind.replace('_', ' ')}</span> : null}
      </div>
      <dl className="facts">
        <div className="fact-wide">
          <dt>Op</dt>
          <dd className="mono break">{call.opName ?? '—'}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <Time value={call.startedAt} />
          </dd>
        </div>
        <div>
          <dt>Ended</dt>
          <dd>{call.endedAt ? <Time value={call.endedAt} /> : <span className="muted">still running</span>}</dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd>{formatDuration(call.latencyMs)}</dd>
        </div>
        <div>
          <dt>Call id</dt>
          <dd>
            <ShortId id={call.id} />
          </dd>
        </div>
        {call.wbUserId || call.wbRunId ? (
          <div>
            <dt>User / run</dt>
            <dd>
              <ShortId id={call.wbUserId} />
              {[call.wbRunId, call.wbRunStep].filter((value) => value !== null && value !== undefined).map((value) => ` · ${value}`)}
            </dd>
          </div>
        ) : null}
      </dl>
      {call.exception ? (
        <div className="detail-section">
          <h3>Exception</h3>
          <pre className="exception" data-testid="call-exception">
            {call.exception}
          </pre>
        </div>
      ) : null}
      <DetailJson title="Inputs" value={call.inputs} />
      <DetailJson title="Output" value={call.output} />
      <DetailJson title="Attributes" value={call.attributes} />
      <DetailJson title="Summary" value={call.summary} />
      <DetailJson title={`Feedback (${call.feedback.length})`} value={call.feedback.length > 0 ? call.feedback : undefined} emptyText="No feedback on this call." />
    </div>
  );
}

function DetailJson({ title, value, emptyText }: { title: string; value: unknown; emptyText?: string }) {
  const empty = value === undefined || value === null || (typeof value === 'object' && Object.keys(value as object).length === 0);
  return (
    <details className="detail-section" open={!empty}>
      <summary>
        <h3>{title}</h3>
      </summary>
      {empty ? <p className="muted">{emptyText ?? (value === null || value === undefined ? 'None.' : 'Empty.')}</p> : <JsonViewer value={value} openDepth={2} />}
    </details>
  );
}
