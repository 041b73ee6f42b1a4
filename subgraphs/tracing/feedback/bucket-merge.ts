import { DecimalSum } from './decimal-sum.js';
import { MapsReader, NamesCache } from './rendered-maps.js';

/**
 * One row of the aggregation statement: a bucket (0 when unbucketed), the group values g0…, counts, and its maps
 * rendered as text (rendered-maps.ts): `maps` holds the row's counts and sums; `below`, when not null, is a
 * prefix sum to take away from them (feedback_rating_cdf: the rows in a rating range are maps − below). Sums are
 * numeric text, added exactly.
 */
export interface SourceRow {
  b: number;
  n: number;
  scored: number;
  names: string;
  maps: string;
  below: string | null;
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
  private readonly names = new NamesCache();
  private readonly maps = new MapsReader();
  private readonly below = new MapsReader();
  private readonly rowRatingCounts: number[] = [];

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
    const { tags, ratings } = this.names.of(row.names);
    const maps = this.maps.start(row.maps);
    const below = row.below === null ? null : this.below.start(row.below);
    for (let i = 0; i < tags.length; i++) {
      const count = maps.count() - (below ? below.count() : 0);
      if (count !== 0) addCount(bucket.tags, tags[i]!, count);
    }
    maps.endSection(0);
    below?.endSection(0);
    // Rating counts, then the sums beside them (section by section; the counts wait in a scratch array).
    const counts = this.rowRatingCounts;
    maps.section(1);
    below?.section(1);
    for (let i = 0; i < ratings.length; i++) counts[i] = maps.count() - (below ? below.count() : 0);
    maps.endSection(1);
    below?.endSection(1);
    maps.section(2);
    below?.section(2);
    for (let i = 0; i < ratings.length; i++) {
      const sum = maps.decimal();
      const sumBelow = below ? below.decimal() : null;
      if (counts[i] === 0) continue;
      const known = bucket.ratingCounts.names.length;
      const at = addCount(bucket.ratingCounts, ratings[i]!, counts[i]!);
      // Sums sit beside the counts, position for position.
      if (at === known) bucket.ratingSums.push(new DecimalSum(sum));
      else bucket.ratingSums[at]!.add(sum);
      if (sumBelow !== null) bucket.ratingSums[at]!.add(sumBelow, -1);
    }
    maps.endSection(2);
    below?.endSection(2);
  }

  buckets(): MergedBucket[] {
    const merged: MergedBucket[] = [];
    const orders = new KeyOrders();
    for (const bucket of this.all) {
      const ratingOrder = orders.of(bucket.ratingCounts.names);
      merged.push({
        b: bucket.b,
        groups: bucket.groups,
        n: bucket.n,
        scored: bucket.scored,
        tagCounts: objectOf(bucket.tags.names, bucket.tags.values, orders.of(bucket.tags.names)),
        ratingCounts: objectOf(bucket.ratingCounts.names, bucket.ratingCounts.values, ratingOrder),
        ratingSums: objectOf(bucket.ratingCounts.names, bucket.ratingSums.map((sum) => sum.toNumber()), ratingOrder),
      });
    }
    return merged;
  }
}

const NO_KEYS: readonly number[] = [];
const ONE_KEY: readonly number[] = [0];

/** jsonbOrder of name lists, each distinct list sorted once: most buckets hold the same names in the same order. */
class KeyOrders {
  private readonly known = new Map<string, number[]>();

  of(names: string[]): readonly number[] {
    if (names.length < 2) return names.length === 0 ? NO_KEYS : ONE_KEY;
    const key = names.join('\u0000'); // (PostgreSQL text cannot hold NUL)
    let order = this.known.get(key);
    if (!order) {
      order = jsonbOrder(names);
      this.known.set(key, order);
    }
    return order;
  }
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

function objectOf<V>(names: string[], values: V[], order: readonly number[]): Record<string, V> {
  const object: Record<string, V> = {};
  for (const index of order) {
    const key = names[index]!;
    // A tag named __proto__ is an ordinary key here (as JSON.parse makes it), not the object's prototype.
    if (key === '__proto__') Object.defineProperty(object, key, { value: values[index], enumerable: true, writable: true, configurable: true });
    else object[key] = values[index]!;
  }
  return object;
}
