import { useState } from 'react';
import { JsonViewer } from '../../components/JsonViewer';
import type { ChatPart, ChatTurn, Conversation } from './chat-messages';

const ROLE_LABEL: Record<string, string> = { system: 'System', developer: 'Developer', user: 'User', assistant: 'Assistant', tool: 'Tool', function: 'Function' };
const roleLabel = (role: string) => ROLE_LABEL[role] ?? role;

/**
 * A chat call's messages and answer as a conversation; "Raw JSON" shows the inputs and output as recorded instead
 * (the JSON viewers the page shows for any other call).
 */
export function ChatView({ conversation, inputs, output }: { conversation: Conversation; inputs: unknown; output: unknown }) {
  const [raw, setRaw] = useState(false);
  return (
    <section className="detail-section chat-view" aria-labelledby="chat-heading" data-testid="chat-view">
      <div className="chat-view-header">
        <h3 id="chat-heading">Conversation</h3>
        <button type="button" className="button button-small" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          Raw JSON
        </button>
      </div>
      {raw ? (
        <>
          <h4 className="chat-raw-title">Inputs</h4>
          <JsonViewer value={inputs} openDepth={3} />
          <h4 className="chat-raw-title">Output</h4>
          <JsonViewer value={output} openDepth={3} />
        </>
      ) : (
        <ol className="chat-turns">
          {conversation.input.map((turn, index) => (
            <Turn key={`in-${index}`} turn={turn} />
          ))}
          {conversation.output.map((turn, index) => (
            <Turn key={`out-${index}`} turn={turn} answer />
          ))}
          {conversation.output.length === 0 ? <li className="muted chat-pending">No answer recorded (yet).</li> : null}
        </ol>
      )}
    </section>
  );
}

function Turn({ turn, answer }: { turn: ChatTurn; answer?: boolean }) {
  return (
    <li className={`chat-turn chat-role-${turn.role}${answer ? ' chat-answer' : ''}`} data-role={turn.role}>
      <div className="chat-role">
        {roleLabel(turn.role)}
        {turn.name ? <span className="muted"> · {turn.name}</span> : null}
        {answer ? <span className="muted"> · output</span> : null}
      </div>
      {turn.parts.length === 0 ? <p className="muted chat-empty">(no content)</p> : turn.parts.map((part, index) => <Part key={index} part={part} />)}
    </li>
  );
}

function Part({ part }: { part: ChatPart }) {
  switch (part.kind) {
    case 'text':
      return <p className="chat-text">{part.text}</p>;
    case 'tool_call':
      return (
        <div className="chat-tool" data-testid="chat-tool-call">
          <div className="chat-tool-title">
            Tool call <code>{part.name}</code>
            {part.id ? <span className="muted"> · {part.id}</span> : null}
          </div>
          <pre className="chat-code">{prettyJson(part.arguments)}</pre>
        </div>
      );
    case 'tool_result':
      return (
        <div className="chat-tool" data-testid="chat-tool-result">
          <div className="chat-tool-title">
            Tool result{part.toolCallId ? <span className="muted"> · {part.toolCallId}</span> : null}
          </div>
          <pre className="chat-code">{prettyJson(part.text)}</pre>
        </div>
      );
    case 'image':
      return <p className="chat-text muted">[image{part.source && !part.source.startsWith('data:') ? `: ${part.source}` : ''}]</p>;
    default:
      return <JsonViewer value={part.value} openDepth={1} />;
  }
}

/** Tool arguments arrive as a JSON string (OpenAI) or an object (Anthropic): shown indented either way. */
function prettyJson(value: string): string {
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}
