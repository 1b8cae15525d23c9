// The figure's data: which positions the token at position 0 has reached after each layer of a
// stack of sliding-window attention layers, propagated through the window mask by the core
// (slidingWindowInfluence), and the receptive field in both conventions (slidingWindowReceptiveField).
import type { AttnInference } from '../../../wasm/load';

export const LAYERS = { min: 1, max: 8 } as const;
export const WINDOW = { min: 2, max: 6 } as const;

export interface Config {
  layers: number;
  window: number;
}
export const DEFAULT_CONFIG: Config = { layers: 4, window: 4 };

export interface Figure {
  config: Config;
  /** Positions drawn: the stack's reach and one window past it, which no layer reaches. */
  seqLen: number;
  /** reached[l][p]: position p carries information from position 0 after l layers (l = 0: the input). */
  reached: Uint8Array[];
  /** The farthest position reached after l layers, read off the map. */
  frontier: number[];
  /** The core's closed forms for the whole stack: L (W - 1) from the mask, L x W in Mistral's wording. */
  reachTokens: number;
  paperReachTokens: number;
}

const lastSet = (flags: Uint8Array) => flags.lastIndexOf(1);

export function buildFigure(core: AttnInference, config: Config): Figure {
  const { layers, window } = config;
  for (const [name, value, range] of [['layers', layers, LAYERS], ['window', window, WINDOW]] as const) {
    if (!Number.isInteger(value) || value < range.min || value > range.max) {
      throw new Error(`${name} must be a whole number from ${range.min} to ${range.max}, got ${value}`);
    }
  }
  const field = core.slidingWindowReceptiveField({ layers, window });
  const seqLen = field.reachTokens + window + 1;
  const input = new Uint8Array(seqLen);
  input[0] = 1;
  const reached = [input, ...core.slidingWindowInfluence({ layers, window, seqLen, source: 0 })];
  return { config, seqLen, reached, frontier: reached.map(lastSet), reachTokens: field.reachTokens, paperReachTokens: field.paperReachTokens };
}

// Mistral 7B at full scale, from its preset (layers, window) and the same closed forms.
export function mistralScale(core: AttnInference) {
  const kv = core.kvCacheBytes({ model: 'mistral-7b', contextTokens: 1 });
  const field = core.slidingWindowReceptiveField({ layers: kv.layers, window: kv.slidingWindow });
  return { layers: kv.layers, window: kv.slidingWindow, reachTokens: field.reachTokens, paperReachTokens: field.paperReachTokens };
}

export const stepLabels = (layers: number) => ['input', ...Array.from({ length: layers }, (_, l) => `layer ${l + 1}`)];
