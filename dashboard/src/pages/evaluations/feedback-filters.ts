/**
 * The scorer feedback section's choices as they live in the URL (?window=&bucket=&tags=&scorers=&rmin=&rmax=):
 * the time windows, the bucket sizes each allows (the server caps a request at 10,000 buckets) and the filters.
 */

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

export const WINDOWS: { value: string; label: string; seconds: number }[] = [
  { value: '15m', label: 'Last 15 minutes', seconds: 15 * MINUTE },
  { value: '1h', label: 'Last hour', seconds: HOUR },
  { value: '24h', label: 'Last 24 hours', seconds: DAY },
  { value: '7d', label: 'Last 7 days', seconds: 7 * DAY },
  { value: '30d', label: 'Last 30 days', seconds: 30 * DAY },
];
export const BUCKETS: { seconds: number; label: string }[] = [
  { seconds: 1, label: '1 second' },
  { seconds: 10, label: '10 seconds' },
  { seconds: MINUTE, label: '1 minute' },
  { seconds: 5 * MINUTE, label: '5 minutes' },
  { seconds: HOUR, label: '1 hour' },
  { seconds: 6 * HOUR, label: '6 hours' },
  { seconds: DAY, label: '1 day' },
];
/** The server's cap on buckets per request. */
const MAX_BUCKETS = 10_000;
const DEFAULT_WINDOW = '24h';
export const DEFAULT_BUCKET: Record<string, number> = { '15m': MINUTE, '1h': MINUTE, '24h': HOUR, '7d': 6 * HOUR, '30d': DAY };

export function bucketsFor(windowSeconds: number) {
  return BUCKETS.filter((bucket) => Math.ceil(windowSeconds / bucket.seconds) + 1 <= MAX_BUCKETS && bucket.seconds <= windowSeconds);
}

export const windowSecondsOf = (window: string) => WINDOWS.find((item) => item.value === window)!.seconds;

export interface FeedbackFilters {
  window: string;
  bucket: number;
  tags: string[];
  scorers: string[];
  ratingMin: number | null;
  ratingMax: number | null;
}

export const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export const rating = (value: string | null) => {
  if (value === null || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
};

export function filtersFrom(search: URLSearchParams): FeedbackFilters {
  const window = WINDOWS.some((item) => item.value === search.get('window')) ? search.get('window')! : DEFAULT_WINDOW;
  const allowed = bucketsFor(windowSecondsOf(window)).map((bucket) => bucket.seconds);
  const asked = Number(search.get('bucket'));
  const bucket = allowed.includes(asked) ? asked : DEFAULT_BUCKET[window]!;
  return { window, bucket, tags: list(search.get('tags')), scorers: list(search.get('scorers')), ratingMin: rating(search.get('rmin')), ratingMax: rating(search.get('rmax')) };
}
