// The worked example: one query row against 8 keys, processed as two tiles of 4 by the core's
// flash_forward (FlashAttention-2 loop, Br = 1, Bc = 4), next to the dense softmax from sdpa.
// Every number the figure shows comes from these two calls.
import type { AttnFlash, FlashStep, SdpaResult, Shape4 } from '../../../wasm/load';

export const KEYS = 8;
export const TILE = 4;
export const HEAD_DIM = 4;
export const VALUE_DIM = 2;

export interface Example {
  seed: number;
  keys: Float32Array;    // KEYS x HEAD_DIM
  values: Float32Array;  // KEYS x VALUE_DIM
  steps: FlashStep[];    // load_q, tile, tile, write_o
  finalLse: number;      // from flash_forward
  dense: SdpaResult;     // output, lse and the 8 probabilities of the dense softmax
}

export function buildExample(core: AttnFlash, seed: number): Example {
  // One draw for q, K and V together, so a single seed fixes the whole example.
  const qSize = HEAD_DIM, kSize = KEYS * HEAD_DIM, vSize = KEYS * VALUE_DIM;
  const draw = core.randomNormal([1, 1, 1, qSize + kSize + vSize], seed, 1);
  const q = draw.subarray(0, qSize);
  const keys = draw.slice(qSize, qSize + kSize);
  const values = draw.slice(qSize + kSize);
  const input = {
    q, qShape: [1, 1, 1, HEAD_DIM] as Shape4,
    k: keys, kShape: [1, 1, KEYS, HEAD_DIM] as Shape4,
    v: values, vShape: [1, 1, KEYS, VALUE_DIM] as Shape4,
  };
  const trace = core.flashForwardTrace({ ...input, blockQ: 1, blockK: TILE });
  const dense = core.sdpa({ ...input, returnProbs: true });
  return { seed, keys, values, steps: trace.steps, finalLse: trace.lse[0], dense };
}

// The scores of key j as far as the algorithm has seen them at `step` (undefined if unseen).
export function seenScore(ex: Example, step: number, j: number): number | undefined {
  for (let s = 1; s <= step && s < ex.steps.length; s++) {
    const st = ex.steps[s];
    if (st.kind === 'tile' && j >= st.colBegin && j < st.colEnd) return st.scores[j - st.colBegin];
  }
  return undefined;
}

// Key j's weight as the running state holds it after `step`, once its tile has been folded in:
// the weight e^(s - m) its tile step computed, times every later rescale factor e^(m_old - m_new)
// the core applied to ℓ and O's accumulator. These are the terms ℓ is the sum of, so a raised
// maximum shrinks an earlier tile's bars by exactly the factor the accumulator was multiplied by.
export function heldWeight(ex: Example, step: number, j: number): number | undefined {
  let weight: number | undefined;
  for (let s = 1; s <= step && s < ex.steps.length; s++) {
    const st = ex.steps[s];
    if (st.kind !== 'tile') continue;
    if (j >= st.colBegin && j < st.colEnd) weight = st.weights[j - st.colBegin];
    else if (weight !== undefined) weight *= st.rescale[0];
  }
  return weight;
}

export const STEP_LABELS = ['Start', 'Tile 1', 'Tile 2', 'Finish'];
