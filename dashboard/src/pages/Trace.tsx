import { useCallback, useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { UsageBadges } from '../components/Cost';
import { formatNumber, ShortId } from '../components/Format';
import { PageHeader } from '../components/PageHeader';
import { Empty, ErrorState, Loading } from '../components/States';
import { TraceRootsDocument } from '../graphql/generated';
import { href, Link, useSearchParams } from '../router';
import type { PageProps } from '../routes';
import { callName } from './Home';
import { CallDetail } from './trace/CallDetail';
import { CallTree } from './trace/CallTree';
import { spanOf, TraceViewContext } from './trace/trace-context';
import './trace/trace.css';

/**
 * One trace: its call tree with a waterfall of the calls on the trace's time axis (each call's children read on
 * expand through the graph's `children` connection), the trace's tokens and cost, and the selected call in full.
 * The graph has no subscription for calls, so a trace with a call still running is re-read every 2 s until
 * everything has ended.
 */
const POLL_MS = 2000;

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
  const usage = result.data?.project?.traceUsage;

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
  // The axis is re-derived on every poll (tick), so a running trace's bars grow with it.
  const span = spanOf(roots, Date.now());

  return (
    <>
      <PageHeader
        title={title}
        description={
          <>
            Trace <ShortId id={traceId} /> in <Link to={href('/traces', { project: fullName })}>{fullName}</Link>
            {result.data?.project ? <> · {formatNumber(result.data.project.callsInTrace)} calls</> : null}
            {usage && usage.totalTokens > 0 ? (
              <>
                {' '}
                · <UsageBadges usage={usage} label="Tokens and cost of the trace" />
              </>
            ) : null}
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
        <TraceViewContext.Provider value={{ entity, project, selected, select, tick, span }}>
          <div className="trace-view">
            <section className="card trace-tree-panel" aria-labelledby="tree-heading" data-testid="trace-tree-panel">
              <h2 id="tree-heading">Call tree and timeline</h2>
              <CallTree roots={roots} />
            </section>
            <section className="card trace-detail-panel" aria-labelledby="detail-heading">
              {selected ? <CallDetail id={selected} /> : <Empty title="Select a call." />}
            </section>
          </div>
        </TraceViewContext.Provider>
      )}
    </>
  );
}
