// The figure's state: the ring (sequence length, devices, link bandwidth) and the clock over one
// rotation, restored from and written to the URL hash. A configuration outside the controls'
// choices (a hand-edited hash) keeps the default ring on screen and sets `error`.
import type { AttnInference } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { hashNumber, readHash, syncHash } from '../shared/hashState';
import { createClock } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, modelHead, type Config, type Figure } from './model';

export function createFigureState(core: AttnInference) {
  const hash = readHash();
  const head = modelHead(core);
  // A new ring opens at the start of its rotation, so Play shows it from the first step.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, head, c), DEFAULT_CONFIG,
    () => 'This ring cannot be drawn', (next, _, atStep) => clock.setStops(next.stops, atStep ?? 0));
  const clock = createClock(figure.value.stops, 0, 9000);
  if (hash.seq !== undefined || hash.devices !== undefined || hash.link !== undefined || hash.step !== undefined) {
    configure({
      seqLen: hashNumber(hash, 'seq', DEFAULT_CONFIG.seqLen),
      devices: hashNumber(hash, 'devices', DEFAULT_CONFIG.devices),
      linkGBs: hashNumber(hash, 'link', DEFAULT_CONFIG.linkGBs),
    }, hash.step === undefined ? undefined : Number(hash.step));
  }
  syncHash(() => {
    const c = figure.value.config;
    return { seq: c.seqLen, devices: c.devices, link: c.linkGBs, step: clock.step.value };
  });
  return { figure, error, clock, configure };
}

export type FigureState = ReturnType<typeof createFigureState>;
