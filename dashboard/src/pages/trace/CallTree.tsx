import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from 'urql';
import { formatDuration, StatusBadge } from '../../components/Format';
import { ErrorState } from '../../components/States';
import { TraceCallChildrenDocument, type TraceTreeCallFragment } from '../../graphql/generated';
import { callName } from '../Home';
import { barOf, useTraceView } from './trace-context';

/**
 * The call tree with its waterfall: each row is a call (name, status, latency) and, on the right, its bar on the
 * trace's shared time axis (left = start, width = duration), so nesting reads from the indentation and timing from
 * the bars; children are ordered by start. Clicking a row or its bar selects the call. Keyboard: the WAI-ARIA tree
 * pattern (↑/↓ move, → expands or enters, ← collapses or goes to the parent, Home/End, Enter selects).
 */
export function CallTree({ roots }: { roots: TraceTreeCallFragment[] }) {
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
    <>
      <TimeAxis />
      <ul className="call-tree" role="tree" aria-label="Call tree" ref={tree} onKeyDown={onKeyDown} data-testid="call-tree">
        {roots.map((root, index) => (
          <TreeItem key={root.id} call={root} level={1} initiallyExpanded focusable={index === 0} />
        ))}
      </ul>
    </>
  );
}

/** The axis above the bars: the trace's start, its middle and its end, relative to the start. */
function TimeAxis() {
  const { span } = useTraceView();
  const total = span.endMs - span.startMs;
  return (
    <div className="timeline-axis-row" aria-hidden="true">
      <span className="timeline-axis-label">Call</span>
      <span className="timeline-axis" data-testid="timeline-axis">
        {[0, 0.5, 1].map((fraction) => (
          <span key={fraction} className="timeline-tick" style={{ left: `${fraction * 100}%` }}>
            {fraction === 0 ? '0' : formatDuration(total * fraction)}
          </span>
        ))}
      </span>
    </div>
  );
}

function TreeItem({ call, level, initiallyExpanded, focusable }: { call: TraceTreeCallFragment; level: number; initiallyExpanded: boolean; focusable: boolean }) {
  const { selected, select, span } = useTraceView();
  const hasChildren = call.firstChild.nodes.length > 0;
  const [expanded, setExpanded] = useState(initiallyExpanded && hasChildren);
  const self = useRef<HTMLDivElement>(null);
  const isSelected = selected === call.id;
  const name = callName(call);
  const bar = barOf(call, span, Date.now());

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
        <span className="tree-label" title={call.opName && call.opName !== name ? `${name}\n${call.opName}` : name}>
          {name}
        </span>{' '}
        {call.status !== 'success' ? (
          <>
            <StatusBadge status={call.status} />{' '}
          </>
        ) : null}
        <span className="tree-latency">{formatDuration(call.latencyMs)}</span>
        <span className="timeline-track" aria-hidden="true">
          {bar ? (
            <span
              className={`timeline-bar timeline-${call.status}`}
              style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
              data-testid="timeline-bar"
              data-call-id={call.id}
              data-started-at={call.startedAt ?? ''}
              data-ended-at={call.endedAt ?? ''}
            />
          ) : null}
        </span>
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
  const { entity, project, tick } = useTraceView();
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
