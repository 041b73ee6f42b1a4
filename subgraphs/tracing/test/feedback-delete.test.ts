import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
  await platform.graphql('mutation { ensureProject(entity: "trellis", name: "reactions") { name } }');
});
afterAll(async () => {
  await platform?.close();
});

const P = 'trellis/reactions';
const REF = `weave:///${P}/call/0193a7c0-0000-7000-8000-00000000000a`;
const CREATE = `mutation($input: FeedbackCreateInput!) { createFeedback(input: $input) { id } }`;
const DELETE = `mutation($projectId: String!, $id: String!) { deleteFeedback(projectId: $projectId, id: $id) }`;
const ON_CALL = `query($refs: [String!]) { project(entity: "trellis", name: "reactions") { feedback(weaveRefs: $refs) { nodes { id feedbackType payload } } } }`;
const COUNT = `query($input: FeedbackAggregateInput!) { project(entity: "trellis", name: "reactions") { feedbackAggregate(input: $input) { buckets { totalCount } } } }`;

async function react(emoji: string): Promise<string> {
  const { body } = await platform.graphql(CREATE, { input: { projectId: P, weaveRef: REF, feedbackType: 'wandb.reaction.1', payload: { emoji } } });
  expect(body.errors).toBeUndefined();
  return body.data.createFeedback.id;
}

describe('deleteFeedback', () => {
  it('removes one record: gone from the call and from the aggregate (its rollups), the others kept', async () => {
    const thumbs = await react('👍');
    const party = await react('🎉');
    const window = { afterMs: Date.now() - 3_600_000, beforeMs: Date.now() + 60_000 };
    const before = await platform.graphql(COUNT, { input: window });
    expect(before.body.data.project.feedbackAggregate.buckets[0].totalCount).toBe(2);

    const removed = await platform.graphql(DELETE, { projectId: P, id: thumbs });
    expect(removed.body).toEqual({ data: { deleteFeedback: true } });
    const left = await platform.graphql(ON_CALL, { refs: [REF] });
    expect(left.body.data.project.feedback.nodes).toEqual([{ id: party, feedbackType: 'wandb.reaction.1', payload: { emoji: '🎉' } }]);
    const after = await platform.graphql(COUNT, { input: window });
    expect(after.body.data.project.feedbackAggregate.buckets[0].totalCount).toBe(1);

    // Deleting it again: nothing there any more.
    expect((await platform.graphql(DELETE, { projectId: P, id: thumbs })).body).toEqual({ data: { deleteFeedback: false } });
  });

  it('refuses a caller outside the team and a malformed project id, deleting nothing', async () => {
    const id = await react('👀');
    const outsider = await platform.createUser('feedback-outsider');
    const forbidden = await platform.graphql(DELETE, { projectId: P, id }, outsider.key);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const malformed = await platform.graphql(DELETE, { projectId: 'no-slash', id });
    expect(malformed.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['projectId'] });
    const still = await platform.graphql(ON_CALL, { refs: [REF] });
    expect(still.body.data.project.feedback.nodes.map((node: { id: string }) => node.id)).toContain(id);
  });
});
