/** AdamW over a list of parameter arrays (decoupled weight decay, bias-corrected moments). */
export interface AdamWOptions {
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
}

/** Moment estimates, so a later training call can continue where the last one stopped. */
export interface AdamWState {
  m: Float32Array[];
  v: Float32Array[];
  t: number;
}

export class AdamW {
  private readonly m: Float32Array[];
  private readonly v: Float32Array[];
  private t = 0;
  private readonly beta1: number;
  private readonly beta2: number;
  private readonly eps: number;
  private readonly weightDecay: number;

  constructor(private readonly params: Float32Array[], options: AdamWOptions = {}, resume?: AdamWState) {
    this.m = resume ? resume.m.map((a) => a.slice()) : params.map((p) => new Float32Array(p.length));
    this.v = resume ? resume.v.map((a) => a.slice()) : params.map((p) => new Float32Array(p.length));
    this.t = resume?.t ?? 0;
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.eps = options.eps ?? 1e-8;
    this.weightDecay = options.weightDecay ?? 0;
  }

  state(): AdamWState {
    return { m: this.m, v: this.v, t: this.t };
  }

  /** One update; grads[i] matches params[i]. `decay[i]` false exempts a tensor (norm gains) from weight decay. */
  step(grads: Float32Array[], learningRate: number, decay?: boolean[]): void {
    this.t++;
    const c1 = 1 - Math.pow(this.beta1, this.t);
    const c2 = 1 - Math.pow(this.beta2, this.t);
    for (let k = 0; k < this.params.length; k++) {
      const p = this.params[k];
      const g = grads[k];
      const m = this.m[k];
      const v = this.v[k];
      const wd = decay && decay[k] === false ? 0 : this.weightDecay * learningRate;
      for (let i = 0; i < p.length; i++) {
        const gi = g[i];
        m[i] = this.beta1 * m[i] + (1 - this.beta1) * gi;
        v[i] = this.beta2 * v[i] + (1 - this.beta2) * gi * gi;
        p[i] -= learningRate * ((m[i] / c1) / (Math.sqrt(v[i] / c2) + this.eps)) + wd * p[i];
      }
    }
  }
}

/** Global L2 norm of a gradient list; clipGradients scales them down to maxNorm (returns the norm before clipping). */
export function clipGradients(grads: Float32Array[], maxNorm: number): number {
  let ss = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) ss += g[i] * g[i];
  const norm = Math.sqrt(ss);
  if (Number.isFinite(maxNorm) && norm > maxNorm) {
    const s = maxNorm / (norm + 1e-12);
    for (const g of grads) for (let i = 0; i < g.length; i++) g[i] *= s;
  }
  return norm;
}

/** Linear warmup then cosine decay to minRatio × peak. */
export function cosineSchedule(step: number, totalSteps: number, peak: number, warmupSteps: number, minRatio = 0.1): number {
  if (step < warmupSteps) return (peak * (step + 1)) / warmupSteps;
  const progress = Math.min(1, (step - warmupSteps) / Math.max(1, totalSteps - warmupSteps));
  return peak * (minRatio + (1 - minRatio) * 0.5 * (1 + Math.cos(Math.PI * progress)));
}
