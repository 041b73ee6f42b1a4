import { useEffect, type ReactNode } from 'react';
import { useQuery } from 'urql';
import { formatCost, UsageBadges } from '../../components/Cost';
import { formatDuration, formatNumber, ShortId, StatusBadge, Time } from '../../components/Format';
import { JsonViewer } from '../../components/JsonViewer';
import { Empty, ErrorState, Loading } from '../../components/States';
import { TraceCallDetailDocument } from '../../graphql/generated';
import { callName } from '../Home';
import { ChatView } from './ChatView';
import { conversationOf } from './chat-messages';
import { FeedbackChips } from './FeedbackChips';
import { OpenInPlayground } from './OpenInPlayground';
import { useTraceView } from './trace-context';

/** The selected call in full: facts, tokens and cost, the conversation (chat calls) or its JSON, and its feedback. */
export function CallDetail({ id }: { id: string }) {
  const { entity, project, tick } = useTraceView();
  const [result, reexecute] = useQuery({ query: TraceCallDetailDocument, variables: { entity, project, id } });
  useEffect(() => {
    if (tick > 0) reexecute({ requestPolicy: 'network-only' });
  }, [tick, reexecute]);
  if (result.error && !result.data) return <ErrorState error={result.error} title="Could not load this call" />;
  if (!result.data) return <Loading label="Loading the call…" />;
  const call = result.data.project?.call;
  if (!call) return <Empty title="This call does not exist (any more)." />;
  const conversation = conversationOf(call.inputs, call.output);
  return (
    <div className="call-detail" data-testid="call-detail" data-call-id={call.id}>
      <div className="card-header">
        <h2 id="detail-heading" className="call-detail-title" title={callName(call)}>
          {callName(call)}
        </h2>
        <StatusBadge status={call.status} />
        {call.kind !== 'call' ? <span className="badge">{call.kind.replace('_', ' ')}</span> : null}
        <UsageBadges usage={call.usage} label="Tokens and cost of this call" />
        {conversation ? <OpenInPlayground conversation={conversation} /> : null}
      </div>
      <dl className="facts">
        <div className="fact-wide">
          <dt>Op</dt>
          <dd className="mono break">{call.opName ?? '—'}</dd>
        </div>
        <Fact term="Started">
          <Time value={call.startedAt} />
        </Fact>
        <Fact term="Ended">{call.endedAt ? <Time value={call.endedAt} /> : <span className="muted">still running</span>}</Fact>
        <Fact term="Latency">{formatDuration(call.latencyMs)}</Fact>
        <Fact term="Call id">
          <ShortId id={call.id} />
        </Fact>
        {call.wbUserId || call.wbRunId ? (
          <Fact term="User / run">
            {/* The platform user's name when the id is one of ours; ids of other systems as they are. */}
            {call.user ? <span data-testid="call-user">{call.user.username}</span> : <ShortId id={call.wbUserId} />}
            {[call.wbRunId, call.wbRunStep].filter((value) => value !== null && value !== undefined).map((value) => ` · ${value}`)}
          </Fact>
        ) : null}
        {call.usage.byModel.map((model) => (
          <div key={model.model} className="fact-wide" data-testid="call-model-usage">
            <dt>Tokens · {model.model}</dt>
            <dd>
              {formatNumber(model.inputTokens)} in · {formatNumber(model.outputTokens)} out ·{' '}
              <span title={model.price ? `$${model.price.inputPerMillion} / $${model.price.outputPerMillion} per million tokens (${model.price.source})` : 'No price for this model'}>
                {formatCost(model.cost)}
              </span>
            </dd>
          </div>
        ))}
      </dl>
      {call.exception ? (
        <div className="detail-section">
          <h3>Exception</h3>
          <pre className="exception" data-testid="call-exception">
            {call.exception}
          </pre>
        </div>
      ) : null}
      {conversation ? (
        <ChatView conversation={conversation} inputs={call.inputs} output={call.output} />
      ) : (
        <>
          <DetailJson title="Inputs" value={call.inputs} />
          <DetailJson title="Output" value={call.output} />
        </>
      )}
      <FeedbackChips entity={entity} project={project} callId={call.id} records={call.feedback} onChanged={() => reexecute({ requestPolicy: 'network-only' })} />
      <DetailJson title="Attributes" value={call.attributes} />
      <DetailJson title="Summary" value={call.summary} />
    </div>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
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
