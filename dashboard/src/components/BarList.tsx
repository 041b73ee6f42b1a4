import './BarList.css';

/**
 * Counts as horizontal bars, in a real table (name, count, share) so screen readers and tests read the numbers;
 * the bars themselves are decoration. `data-items` holds how many rows it shows.
 */
export interface BarItem {
  label: string;
  value: number;
  /** Shown instead of the value (e.g. a mean next to a count). */
  detail?: string;
}

export function BarList({ items, caption, valueHeader = 'Count', labelHeader = 'Name', testId }: { items: readonly BarItem[]; caption: string; valueHeader?: string; labelHeader?: string; testId?: string }) {
  const max = Math.max(1, ...items.map((item) => item.value));
  return (
    <table className="bar-list" data-testid={testId} data-items={items.length}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{labelHeader}</th>
          <th scope="col" className="align-right">
            {valueHeader}
          </th>
          <th scope="col" className="bar-list-bar-cell">
            <span className="visually-hidden">Share</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.label}>
            <th scope="row" className="bar-list-label">
              {item.label}
            </th>
            <td className="align-right">{item.detail ?? new Intl.NumberFormat('en').format(item.value)}</td>
            <td className="bar-list-bar-cell" aria-hidden="true">
              <span className="bar-list-bar" style={{ width: `${(item.value / max) * 100}%` }} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
