import type { ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { describeError, formatError } from '../client';

/** Something is on its way. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite" data-state="loading">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** Nothing to show yet, and what would make something appear. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty" data-state="empty">
      <p className="state-title">{title}</p>
      {children ? <div className="state-body">{children}</div> : null}
    </div>
  );
}

/**
 * A refusal or failure, as the server put it: its catalogue code and message ("FORBIDDEN: you are not a member of
 * team x"), so a person knows why, not just that something went wrong.
 */
export function ErrorState({ error, title = 'Could not load this', onRetry }: { error: CombinedError | Error | unknown; title?: string; onRetry?: () => void }) {
  const errors = describeError(error);
  return (
    <div className="state state-error" role="alert" data-state="error">
      <p className="state-title">{title}</p>
      <ul className="error-list">
        {errors.map((item, index) => (
          <li key={index}>
            {item.code ? <code className="error-code">{item.code}</code> : null}
            {item.code ? ': ' : null}
            <span className="error-message">{item.message}</span>
          </li>
        ))}
      </ul>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** Inline variant for a form's result: `CODE: message`. */
export function InlineError({ error }: { error: CombinedError | Error | unknown }) {
  return (
    <p className="inline-error" role="alert">
      {describeError(error).map(formatError).join('; ')}
    </p>
  );
}

/** The three states of a query result in one place: loading, error, or the content (given the data). */
export function QueryState<T>({
  result,
  children,
  loadingLabel,
}: {
  result: { data?: T; fetching: boolean; error?: CombinedError };
  children: (data: T) => ReactNode;
  loadingLabel?: string;
}) {
  if (result.error && !result.data) return <ErrorState error={result.error} />;
  if (!result.data) return <Loading label={loadingLabel} />;
  return (
    <>
      {result.error ? <ErrorState error={result.error} title="Some of this could not be loaded" /> : null}
      {children(result.data)}
    </>
  );
}
