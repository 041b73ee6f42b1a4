import { useState } from 'react';

/**
 * Collapsible JSON: objects and arrays are native <details> elements (keyboard: Tab to a key, Enter/Space to
 * toggle), opened to `openDepth` levels. Long strings are clipped with a "show all" toggle.
 */
export function JsonViewer({ value, label, openDepth = 1 }: { value: unknown; label?: string; openDepth?: number }) {
  return (
    <div className="json-viewer" data-testid="json-viewer">
      {value === undefined ? (
        <span className="json-null">—</span>
      ) : label === undefined && value !== null && typeof value === 'object' && Object.keys(value).length > 0 ? (
        // A top-level object or array without a label: its entries directly (the section around it names it).
        <JsonChildren
          entries={Array.isArray(value) ? value.map((item, index): [string, unknown] => [String(index), item]) : Object.entries(value)}
          depth={0}
          openDepth={openDepth}
          root
        />
      ) : (
        <JsonNode name={label} value={value} depth={0} openDepth={openDepth} />
      )}
    </div>
  );
}

function JsonNode({ name, value, depth, openDepth }: { name?: string; value: unknown; depth: number; openDepth: number }) {
  const keyLabel = name !== undefined ? <span className="json-key">{name}</span> : null;
  if (value !== null && typeof value === 'object') {
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    if (entries.length === 0) {
      return (
        <div className="json-leaf">
          {keyLabel}
          {keyLabel ? ': ' : null}
          <span className="json-punct">{Array.isArray(value) ? '[]' : '{}'}</span>
        </div>
      );
    }
    return (
      <details className="json-branch" open={depth < openDepth}>
        <summary>
          {keyLabel}
          {keyLabel ? ' ' : null}
          <span className="json-punct">{summary}</span>
        </summary>
        <JsonChildren entries={entries} depth={depth} openDepth={openDepth} />
      </details>
    );
  }
  return (
    <div className="json-leaf">
      {keyLabel}
      {keyLabel ? ': ' : null}
      <JsonScalar value={value} />
    </div>
  );
}

/** Big objects and arrays render their first entries, then more on request. */
const ENTRIES_SHOWN = 100;

function JsonChildren({ entries, depth, openDepth, root = false }: { entries: [string, unknown][]; depth: number; openDepth: number; root?: boolean }) {
  const [shown, setShown] = useState(ENTRIES_SHOWN);
  return (
    <div className={root ? 'json-root' : 'json-children'}>
      {entries.slice(0, shown).map(([key, item]) => (
        <JsonNode key={key} name={key} value={item} depth={depth + 1} openDepth={openDepth} />
      ))}
      {entries.length > shown ? (
        <button type="button" className="link-button" onClick={() => setShown(shown + ENTRIES_SHOWN * 10)}>
          show {Math.min(entries.length - shown, ENTRIES_SHOWN * 10)} more of {entries.length}
        </button>
      ) : null}
    </div>
  );
}

const CLIP = 300;

function JsonScalar({ value }: { value: unknown }) {
  const [expanded, setExpanded] = useState(false);
  if (value === null) return <span className="json-null">null</span>;
  if (typeof value === 'string') {
    const clipped = !expanded && value.length > CLIP;
    return (
      <span className="json-string">
        “{clipped ? `${value.slice(0, CLIP)}…` : value}”
        {value.length > CLIP ? (
          <button type="button" className="link-button" onClick={() => setExpanded(!expanded)}>
            {expanded ? 'show less' : `show all ${value.length} characters`}
          </button>
        ) : null}
      </span>
    );
  }
  if (typeof value === 'number') return <span className="json-number">{value}</span>;
  if (typeof value === 'boolean') return <span className="json-boolean">{String(value)}</span>;
  return <span>{String(value)}</span>;
}
