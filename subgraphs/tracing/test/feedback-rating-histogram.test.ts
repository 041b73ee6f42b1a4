import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { traces } from './helpers.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(async () => {
  await platform?.close();
});

const P = 'trellis/ratings';
const QUERY = `query($input: FeedbackAggregateInput!, $bins: Int) { project(entity: "trellis", name: "ratings") {
  feedbackRatingHistogram(input: $input, bins: $bins) { count min max wholeNumbers bins { low high count } } } }`;

async function rate(scorer: string, rating: number, tags: string[] = []) {
  const response = await traces(platform, '/feedback/create', {
    project_id: P,
    weave_ref: `weave:///${P}/call/0193a7c0-0000-7000-8000-000000000001`,
    feedback_type: `wandb.runnable.${scorer}`,
    payload: { output: rating },
    runnable_ref: `weave:///${P}/object/${scorer}:s1`,
    scorer_tags: tags,
    scorer_ratings: { _rating_: rating },
  });
  expect(response.status).toBe(200);
}

const window = () => ({ afterMs: Date.now() - 3_600_000, beforeMs: Date.now() + 1000 });

describe('Project.feedbackRatingHistogram', () => {
  beforeAll(async () => {
    // A judge rating 1–5 (no 2 given) and a 0–1 scorer.
    for (const rating of [1, 1, 3, 4, 5, 5, 5]) await rate('Judge', rating, ['judged']);
    for (const rating of [0, 0.25, 0.3, 1]) await rate('Exact', rating);
  });

  it('bins whole-number ratings one per value over their own range, empty values included (a 1–5 scale shows 1 to 5)', async () => {
    const { body } = await platform.graphql(QUERY, { input: { ...window(), scorerIds: ['Judge'] } });
    expect(body.errors).toBeUndefined();
    expect(body.data.project.feedbackRatingHistogram).toEqual({
      count: 7,
      min: 1,
      max: 5,
      wholeNumbers: true,
      bins: [
        { low: 1, high: 1, count: 2 },
        { low: 2, high: 2, count: 0 },
        { low: 3, high: 3, count: 1 },
        { low: 4, high: 4, count: 1 },
        { low: 5, high: 5, count: 3 },
      ],
    });
  });

  it('bins other ratings in equal bins from the lowest to the highest, the highest in the last bin', async () => {
    const { body } = await platform.graphql(QUERY, { input: { ...window(), scorerIds: ['Exact'] }, bins: 4 });
    expect(body.data.project.feedbackRatingHistogram).toEqual({
      count: 4,
      min: 0,
      max: 1,
      wholeNumbers: false,
      bins: [
        { low: 0, high: 0.25, count: 1 },
        { low: 0.25, high: 0.5, count: 2 },
        { low: 0.5, high: 0.75, count: 0 },
        { low: 0.75, high: 1, count: 1 },
      ],
    });
    // Both scorers together: 0 to 5, not whole numbers, ten bins by default.
    const all = await platform.graphql(QUERY, { input: window() });
    const histogram = all.body.data.project.feedbackRatingHistogram;
    expect(histogram).toMatchObject({ count: 11, min: 0, max: 5, wholeNumbers: false });
    expect(histogram.bins).toHaveLength(10);
    expect(histogram.bins.reduce((sum: number, bin: { count: number }) => sum + bin.count, 0)).toBe(11);
  });

  it('applies the aggregate filters (tags, rating bounds) and answers no bins when nothing is rated', async () => {
    const tagged = await platform.graphql(QUERY, { input: { ...window(), tags: ['judged'] } });
    expect(tagged.body.data.project.feedbackRatingHistogram).toMatchObject({ count: 7, min: 1, max: 5, wholeNumbers: true });
    // The aggregate's rating bounds (0 to 1, as Weave's) narrow the values before binning.
    const bounded = await platform.graphql(QUERY, { input: { ...window(), ratingMax: 0.5 }, bins: 2 });
    expect(bounded.body.data.project.feedbackRatingHistogram).toMatchObject({ count: 3, min: 0, max: 0.3, bins: [{ low: 0, count: 1 }, { low: 0.15, count: 2 }] });
    const none = await platform.graphql(QUERY, { input: { ...window(), scorerIds: ['Nobody'] } });
    expect(none.body.data.project.feedbackRatingHistogram).toEqual({ count: 0, min: null, max: null, wholeNumbers: false, bins: [] });
  });

  it('refuses a bin count out of range and an empty window, changing nothing', async () => {
    const tooMany = await platform.graphql(QUERY, { input: window(), bins: 51 });
    expect(tooMany.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringMatching(/bins must be a whole number from 1 to 50/) });
    const now = Date.now();
    const backwards = await platform.graphql(QUERY, { input: { afterMs: now, beforeMs: now - 1 } });
    expect(backwards.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
