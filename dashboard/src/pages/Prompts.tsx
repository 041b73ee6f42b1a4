import { useQuery } from 'urql';
import { JsonViewer } from '../components/JsonViewer';
import { Empty, QueryState } from '../components/States';
import { WeaveObjectVersionsDocument } from '../graphql/generated';
import type { PageProps } from '../routes';
import { ObjectsPage, type ObjectDetailProps } from './weave-objects/ObjectsPage';
import { VersionList, type ObjectVersion } from './weave-objects/VersionList';

/**
 * Weave's prompt classes: the SDKs publish `StringPrompt` and `MessagesPrompt` (TypeScript and Python) and
 * `EasyPrompt` (Python) with `Prompt` as their base, which is what the object store records as the class.
 */
const PROMPT_CLASSES = ['Prompt', 'StringPrompt', 'MessagesPrompt', 'EasyPrompt'];

interface Message {
  role: string;
  content: unknown;
}

/** A prompt version's content: a string prompt's text, or a messages prompt's messages. */
export function promptContent(val: unknown): { text: string } | { messages: Message[] } | null {
  if (!val || typeof val !== 'object') return null;
  const value = val as Record<string, unknown>;
  if (typeof value.content === 'string') return { text: value.content };
  if (Array.isArray(value.messages)) {
    return {
      messages: value.messages.filter((message): message is Record<string, unknown> => !!message && typeof message === 'object').map((message) => ({ role: String(message.role ?? 'message'), content: message.content })),
    };
  }
  return null;
}

function describe(version: ObjectVersion): string {
  const content = promptContent(version.val);
  if (!content) return '—';
  const text = 'text' in content ? content.text : content.messages.map((message) => `${message.role}: ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`).join(' · ');
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Prompts: the prompt objects a project's SDKs published, their versions and the chosen version's text or messages. */
export default function Prompts(_props: PageProps) {
  return (
    <ObjectsPage
      title="Prompts"
      description="Prompts published with the Weave SDKs (string and messages prompts) and their versions."
      classes={PROMPT_CLASSES}
      noun={['prompt', 'prompts']}
      headingId="prompts-heading"
      empty={
        <Empty title="No prompts in this project yet.">
          Publish one with the Weave SDK: <code>await client.publish(new weave.StringPrompt(&#123; content: 'Hello &#123;name&#125;' &#125;), 'greeting')</code> (TypeScript) or{' '}
          <code>weave.publish(weave.StringPrompt("Hello &#123;name&#125;"), name="greeting")</code> (Python).
        </Empty>
      }
      detail={(detail) => <PromptDetail {...detail} />}
    />
  );
}

function PromptDetail({ entity, project, name, version, onVersion }: ObjectDetailProps) {
  const [result] = useQuery({ query: WeaveObjectVersionsDocument, variables: { entity, project, objectId: name, first: 100 } });
  return (
    <section className="section card" aria-labelledby="prompt-heading" data-testid="prompt-detail">
      <div className="card-header">
        <h2 id="prompt-heading">{name}</h2>
      </div>
      <QueryState result={result} loadingLabel="Loading its versions…">
        {(data) => {
          const versions = data.project?.traceObjects.nodes ?? [];
          const shown = versions.find((candidate) => candidate.digest === version) ?? versions[0];
          if (!shown) return <Empty title={`No prompt ${name} in ${entity}/${project}.`} />;
          return (
            <>
              <h3 className="weave-subheading">Versions</h3>
              <VersionList entity={entity} project={project} versions={versions} selected={shown} onSelect={onVersion} describe={describe} />
              <h3 className="weave-subheading">
                v{shown.versionIndex} <span className="muted">({shown.baseObjectClass === 'Prompt' ? String((shown.val as Record<string, unknown> | null)?._class_name ?? 'Prompt') : shown.baseObjectClass})</span>
              </h3>
              <PromptBody val={shown.val} />
            </>
          );
        }}
      </QueryState>
    </section>
  );
}

function PromptBody({ val }: { val: unknown }) {
  const content = promptContent(val);
  if (!content) return <JsonViewer value={val} label="Value" openDepth={2} />;
  if ('text' in content) {
    return (
      <pre className="weave-prompt-text" data-testid="prompt-text">
        {content.text}
      </pre>
    );
  }
  return (
    <ol className="weave-messages" data-testid="prompt-messages">
      {content.messages.map((message, index) => (
        <li key={index} className={`weave-message weave-message-${message.role.replace(/[^a-z]/gi, '')}`}>
          <span className="weave-message-role">{message.role}</span>
          <div className="weave-message-content">{typeof message.content === 'string' ? message.content : <JsonViewer value={message.content} label={`${message.role} content`} openDepth={1} />}</div>
        </li>
      ))}
    </ol>
  );
}
