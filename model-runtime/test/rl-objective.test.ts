import { describe, expect, it } from 'vitest';
import { InvalidTrajectoryError, choiceFromGeneration, createAdapter, generate, saveAdapter, trainRl } from '../index.js';
import type { TrajectoryGroup } from '../index.js';
import { groupAdvantages, klPenalty, tokenPolicyLoss } from '../rl-trainer.js';
import { tinyRandomModel } from './support/tiny-model.js';

describe('RL objective', () => {
  it('computes group-relative advantages with population std', () => {
    const { advantages, mean, std } = groupAdvantages([1, 0, 0, 1], true);
    expect(mean).toBe(0.5);
    expect(std).toBe(0.5);
    advantages.forEach((a, i) => expect(a).toBeCloseTo((i === 0 || i === 3 ? 0.5 : -0.5) / (0.5 + 1e-6), 9));
    expect(groupAdvantages([1, 0], false).advantages).toEqual([0.5, -0.5]);
    expect(groupAdvantages([0.1, 0.1, 0.1], true).advantages).toEqual([0, 0, 0]);
  });

  it('CISPO, PPO and KL derivatives match finite differences in logp_new', () => {
    const h = 1e-6;
    const cases: Array<[number, number, number]> = [[-1.2, -1.0, 0.7], [-0.3, -2.0, 1.3], [-2.5, -0.4, -0.9], [-0.9, -1.0, -1.1], [-0.1, -3.0, -0.5]];
    for (const [logpNew, logpOld, adv] of cases) {
      for (const fn of ['cispo', 'ppo'] as const) {
        const [eps, epsHigh] = fn === 'cispo' ? [1.0, 4.0] : [0.2, 0.2];
        const f = (x: number) => tokenPolicyLoss(x, logpOld, adv, fn, eps, epsHigh);
        const numeric = (f(logpNew + h).loss - f(logpNew - h).loss) / (2 * h);
        if (fn === 'ppo') {
          expect(f(logpNew).dLogp, `${fn} ${logpNew} ${logpOld} ${adv}`).toBeCloseTo(numeric, 4);
        } else {
          // CISPO detaches the clipped ratio: d/dlogp of (−c·A·logp) with c held fixed.
          const c = Math.min(Math.max(Math.exp(logpNew - logpOld), 1 - eps), 1 + epsHigh);
          expect(f(logpNew).dLogp).toBeCloseTo(-c * adv, 9);
          expect(f(logpNew).loss).toBeCloseTo(-c * adv * logpNew, 9);
        }
      }
      const numericKl = (klPenalty(logpOld, logpNew + h).value - klPenalty(logpOld, logpNew - h).value) / (2 * h);
      expect(klPenalty(logpOld, logpNew).dLogp).toBeCloseTo(numericKl, 4);
    }
    // PPO: a ratio clipped on the side that the advantage favours gets no gradient.
    expect(tokenPolicyLoss(Math.log(1.5), 0, 1, 'ppo', 0.2, 0.2).dLogp).toBe(0);
    expect(tokenPolicyLoss(Math.log(1.5), 0, -1, 'ppo', 0.2, 0.2).dLogp).toBeCloseTo(1.5, 9);
  });
});

describe('trainRl input handling', () => {
  const model = tinyRandomModel();
  const prompt = [{ role: 'user' as const, content: 'say something' }];

  async function sampledGroup(seed: number, rewards: number[]): Promise<TrajectoryGroup> {
    const out = await generate(model, { messages: prompt, seed, n: rewards.length, max_tokens: 12, logprobs: true });
    return { trajectories: out.choices.map((c, i) => ({ messages_and_choices: [...prompt, choiceFromGeneration(c)], reward: rewards[i] })) };
  }

  it('uses the sampling-time logprobs: the first step sees ratio 1 and changes the adapter', async () => {
    const groups = [await sampledGroup(1, [1, 0, 0.5, 0]), await sampledGroup(2, [0, 0, 0, 1])];
    const metrics: Array<Record<string, number>> = [];
    const before = createAdapter(model, { seed: 3 });
    const after = await trainRl({ base: model, adapter: before, trajectoryGroups: groups }, (m) => metrics.push({ ...m }));
    expect(metrics).toHaveLength(1);
    expect(metrics[0].mean_ratio).toBeCloseTo(1, 4);
    expect(metrics[0].num_trajectories).toBe(8);
    expect(metrics[0].reward).toBeCloseTo(2.5 / 8, 9);
    expect(metrics[0].num_trainable_tokens).toBeGreaterThan(0);
    for (const value of Object.values(metrics[0])) expect(typeof value).toBe('number');
    expect(saveAdapter(after)['adapter_model.safetensors'].equals(saveAdapter(before)['adapter_model.safetensors'])).toBe(false);
    expect(after.step).toBe(1);
  });

  it('drops groups whose rewards are all equal, but the step still advances', async () => {
    const groups = [await sampledGroup(4, [1, 1, 1])];
    const before = createAdapter(model, { seed: 3 });
    let seen: Record<string, number> = {};
    const after = await trainRl({ base: model, adapter: before, trajectoryGroups: groups }, (m) => { seen = { ...m }; });
    expect(seen.num_trainable_trajectories).toBe(0);
    expect(seen.num_groups_skipped).toBe(1);
    expect(after.step).toBe(1);
    expect(saveAdapter(after)['adapter_model.safetensors'].equals(saveAdapter(before)['adapter_model.safetensors'])).toBe(true);
  });

  it('names the group and trajectory of a Choice without logprobs, unless allowed', async () => {
    const good = await sampledGroup(5, [1, 0]);
    const bad: TrajectoryGroup = {
      trajectories: [
        good.trajectories[0],
        { messages_and_choices: [...prompt, { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi' } }], reward: 0 },
      ],
    };
    const attempt = trainRl({ base: model, trajectoryGroups: [good, bad] });
    await expect(attempt).rejects.toThrow(InvalidTrajectoryError);
    await expect(trainRl({ base: model, trajectoryGroups: [good, bad] })).rejects.toThrow(/trajectory group 1, trajectory 1: .*no logprobs/);
    const adapter = await trainRl({ base: model, trajectoryGroups: [good, bad], config: { allow_training_without_logprobs: true } });
    expect(adapter.step).toBe(1);
  });

  it('rejects logprobs that do not spell the Choice content', async () => {
    const group = await sampledGroup(6, [1, 0]);
    const choice = group.trajectories[0].messages_and_choices[1] as { message: { content: string } };
    choice.message.content = 'something else';
    await expect(trainRl({ base: model, trajectoryGroups: [group] })).rejects.toThrow(/trajectory group 0, trajectory 0: .*spell/);
  });

  it('can be cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(trainRl({ base: model, trajectoryGroups: [await sampledGroup(7, [1, 0])], signal: controller.signal })).rejects.toThrow(/cancelled/);
  });
});
