import { useEffect } from 'react';

/** A training job's status as a coloured, labelled badge (the text is the status itself, for tests and people). */
const JOB_STATUS_CLASS: Record<string, string> = {
  QUEUED: 'neutral',
  RUNNING: 'running',
  SUCCEEDED: 'ok',
  FAILED: 'error',
  CANCELLED: 'warning',
};

export function JobStatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`status status-${JOB_STATUS_CLASS[status] ?? 'neutral'}`} data-testid={testId}>
      {status}
    </span>
  );
}

/** Whether a job can still change (and so is worth polling, and can be cancelled). */
export function isActiveJob(status: string): boolean {
  return status === 'QUEUED' || status === 'RUNNING';
}

/** Calls `refresh` every `intervalMs` while `active`; stops as soon as it is not. */
export function usePolling(active: boolean, refresh: () => void, intervalMs = 2000): void {
  useEffect(() => {
    if (!active) return;
    const timer = window.setInterval(refresh, intervalMs);
    return () => window.clearInterval(timer);
  }, [active, refresh, intervalMs]);
}
