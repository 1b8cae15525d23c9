// The figure's data: the core's sqrt(d_k) experiment (scalingExperiment) for one seed at every d_k
// the figure steps through, for the three score functions side by side -- Bahdanau's additive
// v_a^T tanh(W_a q + U_a k), the plain dot product q . k and the scaled q . k / sqrt(d_k). Each
// row carries the statistics over many draws (variance of the scores, softmax entropy, top weight,
// the norm of the softmax's Jacobian) and the first draw's 16 scores and weights, which the bars show.
import type { ScalingExperimentInput, ScalingRowInfo, ScoreStatsInfo } from '../../../wasm/classic/classic';
import type { AttnClassic } from '../../../wasm/load';
import { offThread } from '../shared/offThread';

export const DIMS = [4, 8, 16, 32, 64, 128, 256, 512] as const;
export const NUM_KEYS = 16;
// The experiment runs once per seed (on load and on Resample), for every d_k at once, so stepping d_k
// computes nothing. Its cost is set by the largest d_k: each draw takes 17 x 512 normal numbers.
// 100 draws x 16 keys put the dot product's sample variance within ~5 % of d_k.
export const DOT_TRIALS = 100;
// The additive score costs (n + 1) d^2 multiply-adds per draw (an MLP per pair) against n d for a dot
// product, plus its W_a, U_a (2 d^2 normals per d_k, per seed): 4 draws keep Resample to tens of ms.
export const ADDITIVE_TRIALS = 4;
export const MAX_SEED = 4294967295;
export const DEFAULT_SEED = 1;

export type Method = 'additive' | 'dot' | 'scaled';
export const METHODS: readonly Method[] = ['additive', 'dot', 'scaled'];
export const METHOD_NAMES: Record<Method, string> = { additive: 'Additive', dot: 'Dot product', scaled: 'Scaled dot' };
export const METHOD_FORMULAS: Record<Method, string> = {
  additive: 'vᵀ tanh(W q + U k)', dot: 'q · k', scaled: 'q · k / √d_k',
};

export interface Row {
  dim: number;
  stats: Record<Method, ScoreStatsInfo>;
}

export interface Example {
  seed: number;
  rows: Row[];
}

// The two runs of the experiment for one seed: the dot products over many draws, the additive score
// over few. The first draw of a seed is the same whatever the number of trials, so the three panels'
// bars score one and the same q and keys.
const experimentRuns = (seed: number): ScalingExperimentInput[] => [
  { dims: [...DIMS], numKeys: NUM_KEYS, trials: DOT_TRIALS, seed },
  { dims: [...DIMS], numKeys: NUM_KEYS, trials: ADDITIVE_TRIALS, seed, includeAdditive: true },
];

const exampleFrom = (seed: number, dot: ScalingRowInfo[], additive: ScalingRowInfo[]): Example => ({
  seed,
  rows: DIMS.map((dim, i) => ({ dim, stats: { additive: additive[i].additive!, dot: dot[i].raw, scaled: dot[i].scaled } })),
});

/** The example for a seed, computed here (a seed a hash change asks for). */
export function buildExample(core: AttnClassic, seed: number): Example {
  const [dot, additive] = experimentRuns(seed).map((run) => core.scalingExperiment(run));
  return exampleFrom(seed, dot, additive);
}

/** The same in a worker: a new seed costs 100-180 ms of WebAssembly, more than a frame. */
export async function buildExampleOffThread(seed: number): Promise<Example> {
  const [dot, additive] = (await offThread('classic', experimentRuns(seed).map((run) => ['scalingExperiment', run]))) as ScalingRowInfo[][];
  return exampleFrom(seed, dot, additive);
}

export const stepLabels = DIMS.map((d) => String(d));
