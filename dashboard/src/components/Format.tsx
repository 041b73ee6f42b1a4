/** Small formatting helpers shared by pages. */

export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return new Intl.NumberFormat('en').format(value);
}

/** "102.7K", "3.4M": a count that must fit a small card (the exact value goes beside it, in a title). */
export function formatCompactNumber(value: number): string {
  if (Math.abs(value) < 100_000) return formatNumber(value);
  return new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** An absolute time, in the reader's locale, with the exact ISO value in a tooltip. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} title={date.toISOString()}>
      {formatDate(date)}
    </time>
  );
}

export function formatDate(date: Date): string {
  return date.toLocaleString('en-GB', { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** "3 minutes ago". */
export function relativeTime(value: string | null | undefined): string {
  if (!value) return '—';
  const seconds = Math.round((Date.now() - new Date(value).getTime()) / 1000);
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  if (Math.abs(seconds) < 60) return format.format(-seconds, 'second');
  if (Math.abs(seconds) < 3600) return format.format(-Math.round(seconds / 60), 'minute');
  if (Math.abs(seconds) < 86_400) return format.format(-Math.round(seconds / 3600), 'hour');
  return format.format(-Math.round(seconds / 86_400), 'day');
}

const STATUS_CLASS: Record<string, string> = {
  success: 'ok',
  running: 'running',
  error: 'error',
  descendant_error: 'warning',
};

/** A call's (or job's) status as a coloured, labelled badge. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status-${STATUS_CLASS[status] ?? 'neutral'}`}>{status.replace(/_/g, ' ')}</span>;
}

/** Shortens a long id for a table cell; the whole id stays in the title and for copy. */
export function ShortId({ id }: { id: string | null | undefined }) {
  if (!id) return <span className="muted">—</span>;
  return (
    <code className="short-id" title={id}>
      {id.length > 13 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id}
    </code>
  );
}
