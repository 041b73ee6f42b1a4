/**
 * RL on trajectory groups (GRPO-style): group-relative advantages, per-token
 * CISPO or PPO loss on Choice tokens against their sampling-time logprobs,
 * optional KL penalty to the base model, applied to the LoRA weights.
 */
import { clipGradients } from './adamw.js';
import { type TokenisedTrajectory, type TrajectoryGroup, tokeniseTrajectory } from './art-trajectories.js';
import { InvalidRequestError } from './errors.js';
import type { LoraAdapter } from './lora-adapter.js';
import {
  type LoraInit, loraGradientList, optimizerFor, rememberOptimizer, resetGradients, startingAdapter, throwIfAborted, yieldToEventLoop,
} from './lora-training.js';
import type { LlamaModel } from './model.js';
import { logprobGradientToLogits, scoreSequence } from './sequence-logprobs.js';
import { backward, zeroLoraGradients } from './transformer.js';

export interface RlConfig extends LoraInit {
  /** Default 3e-3 (tuned on the tiny base model's LoRA; 1e-2 overshoots there). */
  learning_rate?: number;
  loss_fn?: 'cispo' | 'ppo';
  /** Lower clip: CISPO default 1.0, PPO default 0.2. */
  epsilon?: number;
  /** Upper clip: CISPO default 4.0, PPO default = epsilon. */
  epsilon_high?: number;
  /** Divide advantages by (group std + 1e-6). Default true. */
  scale_rewards?: boolean;
  /** β of the KL penalty to the base model; 0 (default) skips the reference pass. */
  kl_penalty_coef?: number;
  /** Train Choices without logprobs: they are scored under the starting adapter before the first update. */
  allow_training_without_logprobs?: boolean;
  /** Optimizer steps over the same groups (default 1). */
  epochs?: number;
  max_grad_norm?: number;
  weight_decay?: number;
}

export interface RlRequest {
  base: LlamaModel;
  adapter?: LoraAdapter | null;
  trajectoryGroups: TrajectoryGroup[];
  config?: RlConfig;
  signal?: AbortSignal;
}

export interface RlStepMetrics {
  step: number;
  loss: number;
  grad_norm: number;
  learning_rate: number;
  reward: number;
  /** Mean over groups of the population std of rewards within the group. */
  reward_std_dev: number;
  num_trajectories: number;
  num_trainable_trajectories: number;
  num_groups_skipped: number;
  num_trainable_tokens: number;
  /** Mean exp(logp_new − logp_old) over trained tokens. */
  mean_ratio: number;
  kl: number;
}

interface TrainableTrajectory extends TokenisedTrajectory {
  advantage: number;
  rows: Int32Array;
}

/** Group-relative advantages: A = r − mean(group), optionally divided by (population std + 1e-6). */
export function groupAdvantages(rewards: readonly number[], scaleRewards: boolean): { advantages: number[]; mean: number; std: number } {
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
  const advantages = rewards.map((r) => {
    const diff = r - mean;
    // Equal rewards can leave a rounding residue in r − mean; treat it as zero so the group is dropped.
    if (Math.abs(diff) <= 1e-12 * Math.max(1, Math.abs(mean))) return 0;
    return scaleRewards ? diff / (std + 1e-6) : diff;
  });
  return { advantages, mean, std };
}

/** dLoss/dlogp_new for one token (before the weight w and the 1/Σmask factor), and the token loss. */
export function tokenPolicyLoss(
  logpNew: number, logpOld: number, advantage: number, lossFn: 'cispo' | 'ppo', epsilon: number, epsilonHigh: number,
): { loss: number; dLogp: number } {
  const ratio = Math.exp(logpNew - logpOld);
  if (lossFn === 'cispo') {
    const clipped = Math.min(Math.max(ratio, 1 - epsilon), 1 + epsilonHigh); // detached
    return { loss: -clipped * advantage * logpNew, dLogp: -clipped * advantage };
  }
  const clippedRatio = Math.min(Math.max(ratio, 1 - epsilon), 1 + epsilonHigh);
  const unclipped = ratio * advantage;
  const clippedTerm = clippedRatio * advantage;
  if (unclipped <= clippedTerm) return { loss: -unclipped, dLogp: -unclipped }; // d(r·A)/dlogp = r·A
  return { loss: -clippedTerm, dLogp: 0 };
}

/** k3 estimator of KL(new‖ref): exp(ref − new) − (ref − new) − 1, and its derivative in logp_new. */
export function klPenalty(logpRef: number, logpNew: number): { value: number; dLogp: number } {
  const d = logpRef - logpNew;
  return { value: Math.exp(d) - d - 1, dLogp: 1 - Math.exp(d) };
}

export async function trainRl(request: RlRequest, onStep?: (m: RlStepMetrics) => void): Promise<LoraAdapter> {
  const { base, signal } = request;
  const config = request.config ?? {};
  const lossFn = config.loss_fn ?? 'cispo';
  if (lossFn !== 'cispo' && lossFn !== 'ppo') throw new InvalidRequestError(`loss_fn must be "cispo" or "ppo", got ${JSON.stringify(lossFn)}`);
  const epsilon = config.epsilon ?? (lossFn === 'cispo' ? 1.0 : 0.2);
  const epsilonHigh = config.epsilon_high ?? (lossFn === 'cispo' ? 4.0 : epsilon);
  const beta = config.kl_penalty_coef ?? 0;
  const lr = config.learning_rate ?? 3e-3;
  const groups = request.trajectoryGroups;
  if (!Array.isArray(groups) || groups.length === 0) throw new InvalidRequestError('trajectoryGroups must be a non-empty array');

  // Validate and tokenise everything before touching the adapter: bad input fails fast and names its place.
  const kept: TrainableTrajectory[] = [];
  let rewardSum = 0;
  let stdSum = 0;
  let trajectoryCount = 0;
  let skippedGroups = 0;
  groups.forEach((group, g) => {
    if (!group || !Array.isArray(group.trajectories) || group.trajectories.length === 0) {
      throw new InvalidRequestError(`trajectory group ${g} must have a non-empty trajectories array`);
    }
    const tokenised = group.trajectories.map((t, i) =>
      tokeniseTrajectory(t, g, i, config.allow_training_without_logprobs === true, base.config.maxPositionEmbeddings),
    );
    const { advantages, std } = groupAdvantages(tokenised.map((t) => t.reward), config.scale_rewards ?? true);
    rewardSum += tokenised.reduce((a, t) => a + t.reward, 0);
    stdSum += std;
    trajectoryCount += tokenised.length;
    if (advantages.every((a) => a === 0)) skippedGroups++;
    tokenised.forEach((t, i) => {
      if (advantages[i] === 0) return; // teaches nothing
      const rows: number[] = [];
      for (let p = 1; p < t.tokens.length; p++) if (t.trainable[p]) rows.push(p - 1);
      kept.push({ ...t, advantage: advantages[i], rows: Int32Array.from(rows) });
    });
  });

  const adapter = startingAdapter(base, request.adapter, config);
  // Choices sent without logprobs (allow_training_without_logprobs) are scored once here, under the adapter training
  // starts from — the checkpoint the rollouts were sampled from — so every epoch's ratio compares against the
  // sampling policy, as with logprobs recorded at sampling time.
  for (const t of kept) {
    if (!t.rows.some((row) => Number.isNaN(t.oldLogprobs[row + 1]))) continue;
    throwIfAborted(signal, 'RL training');
    const sampled = scoreSequence(base, adapter, t.tokens, t.rows, false).logprobs;
    t.rows.forEach((row, r) => {
      if (Number.isNaN(t.oldLogprobs[row + 1])) t.oldLogprobs[row + 1] = sampled[r];
    });
  }
  const optimizer = optimizerFor(adapter, config.weight_decay ?? 0);
  const gradsByLayer = zeroLoraGradients(adapter);
  const grads = loraGradientList(gradsByLayer);
  const V = base.config.vocabSize;
  const totalMask = kept.reduce((n, t) => n + t.rows.length, 0);
  // Token weight 1/(trainable tokens of its trajectory), normalised so the mean over all tokens is 1.
  const weightScale = kept.length > 0 ? totalMask / kept.length : 0;

  // Reference logprobs (base model without adapter) for the KL term; fixed for this call.
  const refLogprobs = beta > 0 ? kept.map((t) => scoreSequence(base, null, t.tokens, t.rows, false).logprobs) : [];

  const epochs = config.epochs ?? 1;
  for (let epoch = 0; epoch < epochs; epoch++) {
    throwIfAborted(signal, 'RL training');
    resetGradients(grads);
    let loss = 0;
    let ratioSum = 0;
    let klSum = 0;
    for (let k = 0; k < kept.length; k++) {
      throwIfAborted(signal, 'RL training');
      const t = kept[k];
      const scored = scoreSequence(base, adapter, t.tokens, t.rows, true);
      const w = weightScale / t.rows.length;
      const dLogp = new Float64Array(t.rows.length);
      for (let r = 0; r < t.rows.length; r++) {
        const logpNew = scored.logprobs[r];
        const old = t.oldLogprobs[t.rows[r] + 1];
        const logpOld = Number.isNaN(old) ? logpNew : old;
        const token = tokenPolicyLoss(logpNew, logpOld, t.advantage, lossFn, epsilon, epsilonHigh);
        let tokenLoss = token.loss;
        let tokenGrad = token.dLogp;
        if (beta > 0) {
          const kl = klPenalty(refLogprobs[k][r], logpNew);
          tokenLoss += beta * kl.value;
          tokenGrad += beta * kl.dLogp;
          klSum += kl.value;
        }
        ratioSum += Math.exp(logpNew - logpOld);
        loss += (tokenLoss * w) / (totalMask + 1e-6);
        dLogp[r] = (tokenGrad * w) / (totalMask + 1e-6);
      }
      backward(base, adapter, scored.trace!, logprobGradientToLogits(scored, t.tokens, t.rows, dLogp, V), { base: null, lora: gradsByLayer });
      if (k % 4 === 3) await yieldToEventLoop();
    }
    const gradNorm = kept.length > 0 ? clipGradients(grads, config.max_grad_norm ?? 1.0) : 0;
    // A batch where every group had equal rewards has nothing to learn: no update, but the step still counts.
    if (kept.length > 0) optimizer.step(grads, lr);
    adapter.step++;
    onStep?.({
      step: adapter.step,
      loss,
      grad_norm: gradNorm,
      learning_rate: lr,
      reward: rewardSum / trajectoryCount,
      reward_std_dev: stdSum / groups.length,
      num_trajectories: trajectoryCount,
      num_trainable_trajectories: kept.length,
      num_groups_skipped: skippedGroups,
      num_trainable_tokens: totalMask,
      mean_ratio: totalMask > 0 ? ratioSum / totalMask : 1,
      kl: totalMask > 0 ? klSum / totalMask : 0,
    });
    await yieldToEventLoop();
  }
  rememberOptimizer(adapter, optimizer);
  return adapter;
}
