import { DecimalSum } from './decimal-sum.js';

/**
 * The maps of one source row of the aggregation, as the SQL sends them (one JSON array, which node-postgres parses
 * natively; PostgreSQL arrays would be parsed in JavaScript, several times slower):
 * `[tagNames, tagCounts, tagCountsBelow, ratingNames, ratingCounts, ratingCountsBelow, ratingSums, ratingSumsBelow]`.
 * - counts null: every occurrence of a name counts the row's `n` (a rollup row standing for n identical rows);
 * - `…Below` non-null: the row is a range of prefix sums (feedback_rating_cdf): each value is `counts[i] - below[i]`;
 * - sums are PostgreSQL numeric text, added exactly (DecimalSum).
 */
export type SourceMaps = [
  tagNames: string[],
  tagCounts: number[] | null,
  tagCountsBelow: number[] | null,
  ratingNames: string[],
  ratingCounts: number[] | null,
  ratingCountsBelow: number[] | null,
  ratingSums: string[],
  ratingSumsBelow: string[] | null,
];

/** One row of the aggregation statement: a bucket (0 when unbucketed), the group values g0…, counts and maps. */
export interface SourceRow {
  b: number;
  n: number;
  scored: number;
  m: SourceMaps;
  [group: `g${number}`]: string;
}

export interface MergedBucket {
  b: number;
  groups: string[];
  n: number;
  scored: number;
  tagCounts: Record<string, number>;
  ratingCounts: Record<string, number>;
  ratingSums: Record<string, number>;
}

/** Names and values side by side: buckets hold a handful of names, and short arrays beat Maps for that. */
interface Entries<V> {
  names: string[];
  values: V[];
}

interface Accumulator {
  b: number;
  groups: string[];
  n: number;
  scored: number;
  tags: Entries<number>;
  ratingCounts: Entries<number>;
  ratingSums: DecimalSum[];
}

/**
 * Adds up the source rows of each (bucket, group values): a month of hourly buckets is ≈ 10,000 rollup rows, and
 * these loops merge them in a few milliseconds where PostgreSQL's unnest / group / jsonb_object_agg took ≈ 60 ms.
 * Rows can be added as they arrive from PostgreSQL, so that each dies young (cheap for the garbage collector)
 * instead of all of them living until the last one is read.
 */
export class BucketMerger {
  // Bucket start → group values (joined by NUL, which PostgreSQL text cannot hold) → accumulator: two small keys
  // instead of one concatenated string per row.
  private readonly byBucket = new Map<number, Map<string, Accumulator>>();
  private readonly groupKeys: `g${number}`[];
  private readonly all: Accumulator[] = [];

  constructor(groupCount: number) {
    this.groupKeys = Array.from({ length: groupCount }, (_, index) => `g${index}` as const);
  }

  add(row: SourceRow): void {
    const { byBucket, groupKeys, all } = this;
    const groupCount = groupKeys.length;
    let groupKey = '';
    for (let index = 0; index < groupCount; index++) groupKey = index === 0 ? row[groupKeys[0]!]! : `${groupKey}\u0000${row[groupKeys[index]!]!}`;
    let byGroup = byBucket.get(row.b);
    if (!byGroup) {
      byGroup = new Map();
      byBucket.set(row.b, byGroup);
    }
    let bucket = byGroup.get(groupKey);
    if (!bucket) {
      const groups = groupKeys.map((name) => row[name]!);
      bucket = { b: row.b, groups, n: 0, scored: 0, tags: { names: [], values: [] }, ratingCounts: { names: [], values: [] }, ratingSums: [] };
      byGroup.set(groupKey, bucket);
      all.push(bucket);
    }
    bucket.n += row.n;
    bucket.scored += row.scored;
    const [tagNames, tagCounts, tagCountsBelow, ratingNames, ratingCounts, ratingCountsBelow, ratingSums, ratingSumsBelow] = row.m;
    for (let i = 0; i < tagNames.length; i++) {
      const count = countAt(tagCounts, tagCountsBelow, i, row.n);
      if (count !== 0) addCount(bucket.tags, tagNames[i]!, count);
    }
    for (let i = 0; i < ratingNames.length; i++) {
      const count = countAt(ratingCounts, ratingCountsBelow, i, row.n);
      if (count === 0) continue;
      const known = bucket.ratingCounts.names.length;
      const at = addCount(bucket.ratingCounts, ratingNames[i]!, count);
      // Sums sit beside the counts, position for position.
      if (at === known) bucket.ratingSums.push(new DecimalSum(ratingSums[i]!));
      else bucket.ratingSums[at]!.add(ratingSums[i]!);
      if (ratingSumsBelow) bucket.ratingSums[at]!.add(ratingSumsBelow[i]!, -1);
    }
  }

  buckets(): MergedBucket[] {
    const merged: MergedBucket[] = [];
    for (const bucket of this.all) {
      const ratingOrder = jsonbOrder(bucket.ratingCounts.names);
      merged.push({
        b: bucket.b,
        groups: bucket.groups,
        n: bucket.n,
        scored: bucket.scored,
        tagCounts: objectOf(bucket.tags.names, bucket.tags.values, jsonbOrder(bucket.tags.names)),
        ratingCounts: objectOf(bucket.ratingCounts.names, bucket.ratingCounts.values, ratingOrder),
        ratingSums: objectOf(bucket.ratingCounts.names, bucket.ratingSums.map((sum) => sum.toNumber()), ratingOrder),
      });
    }
    return merged;
  }
}

/** A map entry's count in a source row: its value, less the prefix sum below the range, or the row's n (see SourceMaps). */
function countAt(counts: number[] | null, below: number[] | null, index: number, n: number): number {
  return counts ? counts[index]! - (below ? below[index]! : 0) : n;
}

/** Adds `count` under `name` and returns the name's position (the end of `names` when it is new). */
function addCount(entries: Entries<number>, name: string, count: number): number {
  const at = entries.names.indexOf(name);
  if (at >= 0) {
    entries.values[at]! += count;
    return at;
  }
  entries.values.push(count);
  return entries.names.push(name) - 1;
}

/**
 * The positions of `names` in jsonb's key order (shorter first, then bytewise: the order these maps had when
 * PostgreSQL built them as jsonb), so the answer's bytes do not depend on the order the rows arrived in.
 */
function jsonbOrder(names: string[]): number[] {
  const order = names.map((_, index) => index);
  if (names.length > 1) order.sort((a, b) => compareJsonbKeys(names[a]!, names[b]!));
  return order;
}

function compareJsonbKeys(a: string, b: string): number {
  if (isAscii(a) && isAscii(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  return Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function objectOf<V>(names: string[], values: V[], order: number[]): Record<string, V> {
  const object: Record<string, V> = {};
  for (const index of order) {
    const key = names[index]!;
    // A tag named __proto__ is an ordinary key here (as JSON.parse makes it), not the object's prototype.
    if (key === '__proto__') Object.defineProperty(object, key, { value: values[index], enumerable: true, writable: true, configurable: true });
    else object[key] = values[index]!;
  }
  return object;
}
