import { useState, type FormEvent } from 'react';
import { bucketsFor, DEFAULT_BUCKET, list, rating, WINDOWS, windowSecondsOf, type FeedbackFilters } from './feedback-filters';

/** The scorer feedback filters; Apply puts them in the URL (and looks at the window ending now). */
export function FeedbackFilterForm({ filters, onApply, onRefresh }: { filters: FeedbackFilters; onApply: (filters: Record<string, string | null>) => void; onRefresh: () => void }) {
  const [window, setWindow] = useState(filters.window);
  const [bucket, setBucket] = useState(String(filters.bucket));
  const [tags, setTags] = useState(filters.tags.join(', '));
  const [scorers, setScorers] = useState(filters.scorers.join(', '));
  const [ratingMin, setRatingMin] = useState(filters.ratingMin === null ? '' : String(filters.ratingMin));
  const [ratingMax, setRatingMax] = useState(filters.ratingMax === null ? '' : String(filters.ratingMax));
  const [problem, setProblem] = useState<string | null>(null);

  const buckets = bucketsFor(windowSecondsOf(window));
  const bucketValue = buckets.some((item) => String(item.seconds) === bucket) ? bucket : String(DEFAULT_BUCKET[window]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const min = rating(ratingMin);
    const max = rating(ratingMax);
    for (const [label, text, value] of [
      ['Minimum rating', ratingMin, min],
      ['Maximum rating', ratingMax, max],
    ] as const) {
      if (text.trim() !== '' && (value === null || value < 0 || value > 1)) {
        setProblem(`${label} must be a number between 0 and 1.`);
        return;
      }
    }
    if (min !== null && max !== null && min > max) {
      setProblem('The minimum rating is above the maximum.');
      return;
    }
    setProblem(null);
    onApply({
      window,
      bucket: bucketValue,
      tags: list(tags).join(',') || null,
      scorers: list(scorers).join(',') || null,
      rmin: min === null ? null : String(min),
      rmax: max === null ? null : String(max),
    });
    onRefresh();
  };

  return (
    <form className="filters eval-filters" onSubmit={submit} aria-label="Feedback filters" noValidate>
      <div className="field">
        <label htmlFor="feedback-window">Time window</label>
        <select id="feedback-window" value={window} onChange={(event) => setWindow(event.target.value)}>
          {WINDOWS.map((item) => (
            <option key={item.value} value={item.value}>
              {item.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="feedback-bucket">Bucket size</label>
        <select id="feedback-bucket" value={bucketValue} onChange={(event) => setBucket(event.target.value)}>
          {buckets.map((item) => (
            <option key={item.seconds} value={item.seconds}>
              {item.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="feedback-scorers">Scorers</label>
        <input id="feedback-scorers" value={scorers} onChange={(event) => setScorers(event.target.value)} placeholder="all scorers" size={14} aria-describedby="feedback-filter-hint" />
      </div>
      <div className="field">
        <label htmlFor="feedback-tags">Tags</label>
        <input id="feedback-tags" value={tags} onChange={(event) => setTags(event.target.value)} placeholder="any tag" size={12} aria-describedby="feedback-filter-hint" />
      </div>
      <div className="field">
        <label htmlFor="feedback-rating-min">Min rating</label>
        <input id="feedback-rating-min" type="number" min={0} max={1} step={0.05} inputMode="decimal" value={ratingMin} onChange={(event) => setRatingMin(event.target.value)} placeholder="0" className="eval-rating-input" />
      </div>
      <div className="field">
        <label htmlFor="feedback-rating-max">Max rating</label>
        <input id="feedback-rating-max" type="number" min={0} max={1} step={0.05} inputMode="decimal" value={ratingMax} onChange={(event) => setRatingMax(event.target.value)} placeholder="1" className="eval-rating-input" />
      </div>
      <div className="field eval-filter-actions">
        <button type="submit" className="button button-primary">
          Apply
        </button>
      </div>
      <p id="feedback-filter-hint" className="hint eval-filter-hint">
        Scorers and tags: comma-separated names; a scorer ending in * matches every scorer with that prefix. The rating bounds filter on <code>_rating_</code> from 0 to 1 (as the
        aggregate API does).
      </p>
      {problem ? (
        <p className="inline-error eval-filter-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
