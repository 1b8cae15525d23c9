// The complexity chart's data: memory and FLOPs of one attention head against N, from 256 to a
// million tokens, for dense attention, one representative of each approximation family and
// FlashAttention, all from the core's cost model (complexityCurves, complexityPoint) with the
// constants of its implementations; the model markers and the A100 line with their sources.
import type { AttnClassic } from '../../../wasm/load';
import type { ComplexityCurveInfo, ComplexityMethodName, ComplexityPointInfo, MemoryReferenceInfo, TimelineMarkerInfo } from '../../../wasm/classic/sparse';
import { fmtInt } from '../shared/format';

export const N_MIN = 256;
export const N_MAX = 1_000_000;
export const CURVE_POINTS = 96;
/** The clock's stops: N = 256, then every decade to a million (log10 N). */
export const STOPS = [Math.log10(N_MIN), 3, 4, 5, 6];

/**
 * One head, d = 64, FP16, and each method's constants as the core's implementations default to
 * them (ComplexityParams), passed explicitly so that the text quoting them says what was counted.
 */
export const PARAMS = {
  headDim: 64, valueDim: 64, bytesPerElement: 2,
  lshBuckets: 64, lshRounds: 4, lshChunk: 64, linformerK: 256, performerFeatures: 256, flashBlockQ: 64, flashBlockK: 64,
} as const;

export type Metric = 'memory' | 'flops';
export const METRICS: { value: Metric; text: string }[] = [{ value: 'memory', text: 'Memory' }, { value: 'flops', text: 'FLOPs' }];

export const METHODS: { method: ComplexityMethodName; name: string; paper: string }[] = [
  { method: 'dense', name: 'Dense', paper: 'Vaswani et al. 2017' },
  { method: 'sparse', name: 'Sparse Transformer', paper: 'Child et al. 2019' },
  { method: 'lsh', name: 'Reformer (LSH)', paper: 'Kitaev et al. 2020' },
  { method: 'linformer', name: 'Linformer', paper: 'Wang et al. 2020' },
  { method: 'performer', name: 'Performer', paper: 'Choromanski et al. 2021' },
  { method: 'flash', name: 'FlashAttention (exact)', paper: 'Dao et al. 2022' },
];

/** A marker's key in the URL: its model name in lower case, spaces as hyphens ("gemini-1.5-pro"). */
export const markerKey = (m: TimelineMarkerInfo) => m.model.toLowerCase().replace(/\s+/g, '-');

export interface Config {
  metric: Metric;
  /** Marker keys shown. */
  marks: string[];
}

export interface Figure {
  config: Config;
  curves: ComplexityCurveInfo[];
  markers: TimelineMarkerInfo[];
  a100: MemoryReferenceInfo;
}

export const value = (p: ComplexityPointInfo | { peakBytes: number; flops: number }, metric: Metric) => (metric === 'memory' ? p.peakBytes : p.flops);

/** What the chart draws whatever the settings: the curves, the markers and the A100 line, from the core once. */
export type Sources = Omit<Figure, 'config'>;

export function loadSources(core: AttnClassic): Sources {
  return {
    curves: core.complexityCurves({ nMin: N_MIN, nMax: N_MAX, points: CURVE_POINTS, ...PARAMS }),
    markers: core.timelineMarkers(),
    a100: core.memoryReference(),
  };
}

export function buildFigure(sources: Sources, config: Config): Figure {
  if (!METRICS.some((m) => m.value === config.metric)) throw new Error(`metric must be 'memory' or 'flops', got '${config.metric}'`);
  const keys = sources.markers.map(markerKey);
  const unknown = config.marks.find((k) => !keys.includes(k));
  if (unknown !== undefined) throw new Error(`marks must name markers among ${keys.join(', ')}, got '${unknown}'`);
  return { config, ...sources };
}

/** N at clock time t (log10 N), a whole number of tokens within the chart's range. */
export const nAt = (t: number) => Math.min(N_MAX, Math.max(N_MIN, Math.round(10 ** t)));

/** Every method at N, from the core (the dots). */
export const pointsAt = (core: AttnClassic, n: number) => METHODS.map(({ method }) => core.complexityPoint({ method, seqLen: n, ...PARAMS }));

/** Validates an N from the URL: a whole number in [N_MIN, N_MAX]. */
export function checkN(n: number): number {
  if (!Number.isInteger(n) || n < N_MIN || n > N_MAX) throw new Error(`n must be a whole number from ${N_MIN} to ${fmtInt(N_MAX)}, got ${n}`);
  return n;
}
