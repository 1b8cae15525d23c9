// Hand-written declaration of the KV-cache-scheme API bound in wasm/inference/bind_kvschemes.cpp: cache sizes
// under MHA / MQA / GQA / MLA and sliding windows with the formula's terms, the Part 4 scheme
// comparison, RoPE of one vector, and a small MLA run in explicit and absorbed form. Every
// function throws a JavaScript Error naming the bad argument and its allowed range; the module
// keeps working afterwards. Byte counts are exact integers (a result above 2^53 throws).

/** Element type of the cache: bf16 and fp16 both take 2 bytes. */
export type KvDtype = 'fp32' | 'fp16' | 'bf16' | 'fp8';
export type KvSchemeName = 'mha' | 'mqa' | 'gqa' | 'mla';
/** RoPE pair layout: 'half_split' pairs (x_i, x_{i+d/2}) as Llama / GPT-NeoX (default); 'interleaved' pairs (x_2i, x_2i+1) as RoFormer eq. 34. */
export type RopeLayoutName = 'half_split' | 'interleaved';
export type KvCausal = 'none' | 'top_left' | 'bottom_right';

/** One factor of the per-token size; bytesPerToken is the product of every term's value. */
export interface KvTermInfo {
  /** As printed in the formula: '2', 'L', 'H_kv', 'd_h', 'd_c + d_R', 'bytes'. */
  symbol: string;
  /** What it counts, e.g. 'K and V', 'layers', 'latent c_KV (d_c = 512) + shared RoPE key k_R (d_R = 64)'. */
  meaning: string;
  value: number;
}

export interface KvBytesInfo {
  scheme: KvSchemeName;
  dtype: KvDtype;
  layers: number;
  qHeads: number;
  /** Cached K/V heads (MHA: qHeads, MQA: 1, GQA: G); 0 under MLA, which caches no per-head K or V. */
  kvHeads: number;
  /** Head dimension of the cached K/V rows; 0 under MLA. */
  headDim: number;
  /** MLA latent width d_c; 0 otherwise. */
  latentDim: number;
  /** MLA shared RoPE-key width d_R; 0 otherwise. */
  ropeDim: number;
  /** Tokens each layer keeps (Mistral's rolling buffer); 0 = the whole context. */
  slidingWindow: number;
  /** '2 x L x H_kv x d_h x bytes' or 'L x (d_c + d_R) x bytes'. */
  formula: string;
  /** The formula's factors in order. */
  terms: KvTermInfo[];
  /** 2 H_kv d_h, or d_c + d_R under MLA. */
  elementsPerTokenPerLayer: number;
  /** Over all layers, bytes. */
  bytesPerToken: number;
  contextTokens: number;
  /** min(contextTokens, slidingWindow) under a sliding window, else contextTokens. */
  cachedTokens: number;
  batch: number;
  /** bytesPerToken x cachedTokens. */
  bytesPerRequest: number;
  /** bytesPerRequest x batch. */
  totalBytes: number;
}

/** A model preset, or an explicit configuration. */
export type KvConfigArgs =
  | { /** A model preset id ('llama3-70b', 'mistral-7b', 'deepseek-v2', ...; see modelPresets()). */ model: string }
  | {
      scheme: KvSchemeName;
      /** In [1, 65536]. */
      layers: number;
      /** In [1, 65536]. */
      qHeads: number;
      /** GQA only: G, dividing qHeads. */
      kvHeads?: number;
      /** MHA / MQA / GQA: in [1, 65536]. */
      headDim?: number;
      /** MLA only: d_c in [1, 65536]. */
      latentDim?: number;
      /** MLA only: d_R in [1, 65536]. */
      ropeDim?: number;
      /** Tokens each layer keeps, 0 (default) = full attention; at most 2^24. */
      slidingWindow?: number;
    };

export interface KvSchemesApi {
  /**
   * KV-cache size of `batch` requests of `contextTokens` tokens, with the formula's terms.
   * contextTokens in [1, 2^24], batch in [1, 65536] (default 1), dtype default 'fp16'.
   */
  kvCacheBytes(args: KvConfigArgs & { dtype?: KvDtype; contextTokens: number; batch?: number }): KvBytesInfo;
  /**
   * One model shape under MHA, MQA, GQA-G and MLA, in that order. Defaults are the Part 4
   * "Llama-3-70B-like" shape: 80 layers, 64 query heads of 128, G = 8, d_c = 512, d_R = 64.
   */
  kvSchemeComparison(args: {
    contextTokens: number;
    batch?: number;
    dtype?: KvDtype;
    layers?: number;
    qHeads?: number;
    headDim?: number;
    /** Must divide qHeads. */
    gqaGroups?: number;
    latentDim?: number;
    ropeDim?: number;
  }): KvBytesInfo[];
  /**
   * RoPE (RoFormer eq. 34) of one vector at `position`: pair i turned by position x theta_i with
   * theta_i = base^(-2i/d). x has an even length in [2, 16384]; position in [0, 2^24];
   * base in (1, 1e12], default 10000; layout default 'half_split'.
   */
  ropeVector(args: { x: number[] | Float32Array | Float64Array; position: number; base?: number; layout?: RopeLayoutName }): {
    /** The rotated vector (double precision). */
    rotated: number[];
    /** theta_i per pair, radians per position. */
    thetas: number[];
    /** position x theta_i per pair, radians (not reduced mod 2 pi). */
    anglesRad: number[];
  };
  /**
   * One MLA layer (DeepSeek-V2 Sec. 2.1) on seeded random weights and inputs, computed in double
   * both with per-head K/V materialised (explicit) and against the latent cache with W_UK / W_UV
   * absorbed. Sizes in [1, 64] (ropeDim even), seqLen in [1, 128], batch in [1, 4],
   * queryLen in [0, seqLen] (0 = every token; queries are the last tokens), causal default
   * 'bottom_right', seed in [0, 2^32 - 1]; batch x heads x seqLen^2 x (latentDim + ropeDim) <= 2^22.
   */
  /**
   * GQA's conversion step (Ainslie et al. 2023, mean-pooled K/V heads) on a random multi-head layer
   * whose K/V heads resemble each other by `similarity` (0 independent, 1 identical; default 0),
   * before any uptraining: for every group count dividing `heads`, from `heads` down to 1, the
   * relative change of the heads' attention outputs on random hidden states. heads in [1, 16];
   * modelDim, headDim and seqLen in [1, 64]: at most about 0.1 s.
   */
  gqaConversion(args: { modelDim: number; heads: number; headDim: number; seqLen: number; similarity?: number; seed?: number }): {
    groups: number;
    /** ||O_G - O|| / ||O||; 0 at groups = heads. */
    relativeChange: number;
  }[];
  mlaCompare(args: {
    modelDim: number;
    heads: number;
    latentDim: number;
    nopeDim: number;
    ropeDim: number;
    valueDim: number;
    seqLen: number;
    queryLen?: number;
    batch?: number;
    causal?: KvCausal;
    seed?: number;
  }): {
    /** [batch, 1, queries, modelDim], rounded to float. */
    explicitOutput: Float32Array;
    absorbedOutput: Float32Array;
    outputShape: [number, number, number, number];
    /** Largest |explicit - absorbed| over the outputs, computed in double. */
    maxAbsDiff: number;
    /** heads x (nopeDim + ropeDim + valueDim): what caching the materialised K and V would take. */
    explicitCacheElementsPerToken: number;
    /** latentDim + ropeDim: what the absorbed form caches. */
    absorbedCacheElementsPerToken: number;
    /** Tokens in the latent cache (seqLen). */
    cacheTokens: number;
  };
}
