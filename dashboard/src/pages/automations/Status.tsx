import type { DeliveryStatus } from '../../graphql/generated';

const DELIVERY_CLASS: Record<DeliveryStatus, string> = { SUCCEEDED: 'ok', PENDING: 'running', FAILED: 'error' };

/** A delivery's state as a coloured, labelled badge. */
export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  return <span className={`status status-${DELIVERY_CLASS[status]}`}>{status.toLowerCase()}</span>;
}

/** An HTTP status code (2xx green, others red); "no answer" when there was none. */
export function HttpStatus({ status }: { status: number | null | undefined }) {
  if (status === null || status === undefined) return <span className="status status-neutral">no answer</span>;
  return (
    <span className={`status ${status >= 200 && status < 300 ? 'status-ok' : 'status-error'}`} data-testid="http-status">
      {status}
    </span>
  );
}
