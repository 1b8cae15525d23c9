// Types shared by the modules' APIs: shapes, causal alignment, masks and the Q/K/V input every
// attention function takes. Every function of every module throws a JavaScript Error whose
// message names the bad argument and its allowed range; the module keeps working afterwards.

/** [batch, heads, seq, dim], SDPA's layout; every entry an integer >= 1. */
export type Shape4 = [number, number, number, number];

/** PyTorch is_causal (top_left) or causal_lower_right (bottom_right). */
export type Causal = 'none' | 'top_left' | 'bottom_right';

export interface MaskInput {
  /**
   * boolean: nonzero = may attend (0.5, 256, Infinity and -Infinity all allow the key), 0 = masked,
   * NaN is refused. additive: added to the scaled scores (-Infinity blocks).
   */
  kind: 'boolean' | 'additive';
  /** Each dimension 1 (broadcast) or equal to [B, H, L, S]. */
  shape: Shape4;
  data: Uint8Array | Float32Array | number[];
}

/**
 * Q, K and V: each at most 2^20 elements, and B * Hq * L * S * (D + Dv) (the multiply-adds of one
 * exact pass) at most 2^27 (2^26 for flashBackward and the approximate methods, which do about
 * twice that), so that any accepted call finishes within a second in a browser (the tiling
 * figure's largest, N = 1024 and d = 64, is 2^27); every length is checked before an array is
 * copied. Functions add
 * their own caps (sdpa's B * H * L * S <= 2^22, the traced runs' L, S <= 1024), listed with them.
 */
export interface AttentionInput {
  q: Float32Array | number[];
  qShape: Shape4;
  k: Float32Array | number[];
  kShape: Shape4;
  v: Float32Array | number[];
  vShape: Shape4;
  /** Any finite number; default 1/sqrt(head_dim). */
  scale?: number;
  causal?: Causal;
  /** Not combinable with causal (as in SDPA). */
  mask?: MaskInput;
}

/** Bound into every module (wasm/common/bind_random.cpp). */
export interface RandomApi {
  /** Seeded N(0, stddev^2) values, identical in every browser. seed: integer in [0, 2^32 - 1]; stddev in (0, 1e30]; at most 2^20 values. */
  randomNormal(shape: Shape4, seed: number, stddev: number): Float32Array;
}

/** What each module's factory accepts (Node tests pass the .wasm bytes). */
export interface ModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string) => string;
  /** Emscripten's hook: instantiate the module here and hand the instance to `receive`. */
  instantiateWasm?: (
    imports: WebAssembly.Imports,
    receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ) => object;
}
