import { describe, expect, it } from 'vitest';
import { MapsReader, NamesCache } from '../feedback/rendered-maps.js';
import { BucketMerger, type SourceRow } from '../feedback/bucket-merge.js';

/** Reads every value of a maps text whose names have `tags` tags and `ratings` rating names. */
function readAll(text: string, tags: number, ratings: number) {
  const reader = new MapsReader().start(text);
  const tagCounts = Array.from({ length: tags }, () => reader.count());
  reader.endSection(0);
  reader.section(1);
  const ratingCounts = Array.from({ length: ratings }, () => reader.count());
  reader.endSection(1);
  reader.section(2);
  const sums = Array.from({ length: ratings }, () => reader.decimal());
  reader.endSection(2);
  return { tagCounts, ratingCounts, sums };
}

describe('rendered rollup maps', () => {
  it('reads the three sections of a maps text, empty sections included', () => {
    expect(readAll('37,18,19;75,75;31.00,-34.428571428571426', 3, 2)).toEqual({
      tagCounts: [37, 18, 19],
      ratingCounts: [75, 75],
      sums: ['31.00', '-34.428571428571426'],
    });
    expect(readAll(';2;0.5', 0, 1)).toEqual({ tagCounts: [], ratingCounts: [2], sums: ['0.5'] });
    expect(readAll('4;;', 1, 0)).toEqual({ tagCounts: [4], ratingCounts: [], sums: [] });
    expect(readAll(';;', 0, 0)).toEqual({ tagCounts: [], ratingCounts: [], sums: [] });
    expect(readAll('9007199254740991;;', 1, 0).tagCounts).toEqual([9007199254740991]);
  });

  it('refuses maps that do not match their names instead of answering from them', () => {
    expect(() => readAll('1,2;3;4', 1, 1)).toThrow(/malformed rollup maps/); // a tag count too many
    expect(() => readAll('1;3;4', 2, 1)).toThrow(/malformed rollup maps/); // one too few
    expect(() => readAll('1;3;', 1, 1)).toThrow(/malformed rollup maps/); // a missing sum
    expect(() => readAll('1;x;4', 1, 1)).toThrow(/malformed rollup maps/);
    expect(() => new MapsReader().start('1;2')).toThrow(/malformed rollup maps/);
    expect(() => new MapsReader().start('1;2;3;4')).toThrow(/malformed rollup maps/);
  });

  it('parses each distinct names text once', () => {
    const cache = new NamesCache();
    const first = cache.of('[["a,b", "c;d"], ["_rating_"]]');
    expect(first).toEqual({ tags: ['a,b', 'c;d'], ratings: ['_rating_'] });
    expect(cache.of('[["a,b", "c;d"], ["_rating_"]]')).toBe(first);
  });

  it('merges rows and prefix-sum ranges into buckets, with exact sums and names in jsonb order', () => {
    const merger = new BucketMerger(1);
    const row = (b: number, g0: string, n: number, names: string, maps: string, below: string | null = null): SourceRow => ({ b, g0, n, scored: n, names, maps, below });
    merger.add(row(0, 'S', 3, '[["toxic","ok"],["_rating_"]]', '2,1;3;0.1'));
    // A range of prefix sums: 5 rows up to the bound, 2 below it; `ok` is entirely below, so it does not appear.
    merger.add(row(0, 'S', 3, '[["ok","toxic"],["_rating_","r2"]]', '2,4;5,1;1.3,0.7', '2,1;2,1;0.3,0.7'));
    merger.add(row(3600, 'S', 1, '[[],["_rating_"]]', ';1;0.2'));
    expect(merger.buckets()).toEqual([
      { b: 0, groups: ['S'], n: 6, scored: 6, tagCounts: { ok: 1, toxic: 5 }, ratingCounts: { _rating_: 6 }, ratingSums: { _rating_: 1.1 } },
      { b: 3600, groups: ['S'], n: 1, scored: 1, tagCounts: {}, ratingCounts: { _rating_: 1 }, ratingSums: { _rating_: 0.2 } },
    ]);
  });
});
