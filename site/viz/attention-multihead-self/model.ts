// The figure's data: four constructed heads over "The animal didn't cross the street because it was
// too tired", each reproducing a pattern Clark et al. (2019) found in BERT (previous token, syntactic
// head, coreference, broadcast to [SEP]), run together through the core's multi-head self-attention.
//
// The core builds each pattern as queries and keys (patternHead: sinusoidal features of the target
// position, with the gain that guarantees the target MIN_WEIGHT of the softmax). To run the four
// through one real multi-head layer, each token enters as a one-hot vector of its position in
// d_model = D_MODEL dimensions, so a head's W^Q and W^K can hold its pattern's query and key rows
// (x_i W^Q = row i of W^Q); W^V and W^O are the core's seeded N(0, 1/fan_in) draws, as in an
// untrained layer. The weights the figure draws are the layer's, and equal the patterns' (tested).
import type { MultiHeadResult, PatternHeadInput } from '../../../wasm/classic/classic';
import type { AttnClassic } from '../../../wasm/load';

export const TOKENS = ['[CLS]', 'The', 'animal', 'didn’t', 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired', '[SEP]'] as const;
export const N = TOKENS.length;
export const SEP = N - 1;
export const IT = 8;
export const ANIMAL = 2;
// A dependency parse (each token's head word; the root 'cross' and [CLS] / [SEP] point at themselves):
// determiners to their nouns, 'animal' and 'street' to 'cross', the 'because' clause to 'tired', 'tired' to 'cross'.
export const PARSE_HEADS = [0, 2, 4, 4, 4, 6, 4, 11, 11, 11, 11, 4, 12];

export const D_MODEL = 64;
export const NUM_HEADS = 4;
export const HEAD_DIM = 16;  // d_k = d_v = d_model / h, as in Vaswani et al.
export const MIN_WEIGHT = 0.9;
export const WEIGHTS_SEED = 7;

export interface HeadSpec {
  name: string;
  short: string;
  input: PatternHeadInput;
}

export const HEADS: readonly HeadSpec[] = [
  { name: 'previous token', short: 'prev.', input: { pattern: 'previous_token', numTokens: N } },
  { name: 'syntactic head', short: 'syntax', input: { pattern: 'head_word', heads: PARSE_HEADS } },
  { name: 'coreference', short: 'coref.', input: { pattern: 'coreference', numTokens: N, links: [[IT, ANIMAL]], fallback: SEP } },
  { name: 'broadcast to [SEP]', short: '[SEP]', input: { pattern: 'broadcast', numTokens: N, separator: SEP } },
];

export interface Figure {
  /** weights[h][i * N + j]: head h's attention from token i to token j, from the multi-head layer. */
  weights: Float64Array[];
  /** The key each head's row was built to attend to (patternHead's targets). */
  targets: Float64Array[];
  layer: MultiHeadResult;
  /** Shapes read off the layer's tensors: per head Q, K [N, d_k] and output [N, d_v], concat [N, h d_v], W^O [h d_v, d_model], out [N, d_model]. */
  shapes: { seq: number; heads: number; headDim: number; valueDim: number; concat: number; dModel: number };
}

export function buildFigure(core: AttnClassic): Figure {
  const patterns = HEADS.map((h) => core.patternHead({ ...h.input, features: 'sinusoidal', featureDim: HEAD_DIM, minWeight: MIN_WEIGHT }));
  // W^Q, W^K [heads, d_model, d_k]: rows 0..N-1 of head h are its pattern's query / key rows.
  const wQ = new Float64Array(NUM_HEADS * D_MODEL * HEAD_DIM);
  const wK = new Float64Array(NUM_HEADS * D_MODEL * HEAD_DIM);
  patterns.forEach((p, h) => {
    wQ.set(p.q.data, h * D_MODEL * HEAD_DIM);
    wK.set(p.k.data, h * D_MODEL * HEAD_DIM);
  });
  const x = new Float64Array(N * D_MODEL);
  for (let i = 0; i < N; i++) x[i * D_MODEL + i] = 1;
  const layer = core.multiHeadAttention({
    mode: 'self', x, xShape: [1, N, D_MODEL], numHeads: NUM_HEADS, headDim: HEAD_DIM, valueDim: HEAD_DIM, wQ, wK, weightsSeed: WEIGHTS_SEED,
  });
  const weights = HEADS.map((_, h) => layer.weights.data.slice(h * N * N, (h + 1) * N * N));
  const [, heads, seq, valueDim] = layer.headOutputs.shape;
  return {
    weights, targets: patterns.map((p) => p.targets), layer,
    shapes: { seq, heads, headDim: layer.q.shape[3], valueDim, concat: heads * valueDim, dModel: layer.output.shape[3] },
  };
}

/** Steps: each head alone, then all heads together (the concatenation). */
export const STEP_LABELS = [...HEADS.map((_, h) => `head ${h + 1}`), 'all'];
export const ALL_STEP = HEADS.length;
