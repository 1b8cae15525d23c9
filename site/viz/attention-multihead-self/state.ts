// The figure's state, restored from and written to the URL hash: the step (each head alone, then all
// together), which heads are switched on for the last step (`heads`, one 0/1 per head) and the token
// whose outgoing attention is isolated (`token`, or none). A hash value outside its range leaves the
// default in place and sets `error`, which the page displays.
import { batch, signal } from '@preact/signals';
import type { AttnClassic } from '../../../wasm/load';
import { readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { ALL_STEP, buildFigure, HEADS, N, STEP_LABELS } from './model';

const ALL_ON = HEADS.map(() => true);

export function createFigureState(core: AttnClassic) {
  const hash = readHash();
  const problems: string[] = [];
  const step = hash.step === undefined ? 0 : Number(hash.step);
  const stepOk = Number.isInteger(step) && step >= 0 && step < STEP_LABELS.length;
  if (!stepOk) problems.push(`step must be a whole number from 0 to ${STEP_LABELS.length - 1}, got "${hash.step}"`);
  const stepper = createStepper(STEP_LABELS.length, stepOk ? step : 0);

  let heads = ALL_ON;
  if (hash.heads !== undefined) {
    if (new RegExp(`^[01]{${HEADS.length}}$`).test(hash.heads)) heads = [...hash.heads].map((c) => c === '1');
    else problems.push(`heads must be ${HEADS.length} digits 0 or 1 (one per head), got "${hash.heads}"`);
  }
  let token: number | null = null;
  if (hash.token !== undefined && hash.token !== 'none') {
    const t = Number(hash.token);
    if (Number.isInteger(t) && t >= 0 && t < N) token = t;
    else problems.push(`token must be a whole number from 0 to ${N - 1} (a position in the sentence) or none, got "${hash.token}"`);
  }
  const enabled = signal<boolean[]>(heads);
  const selected = signal<number | null>(token);
  const error = signal<string | null>(problems.length ? `This link's state was not used: ${problems.join('; ')}.` : null);

  // Switching a head on or off shows the heads together (the last step): on a single head's step,
  // that head stays on and the one clicked is switched.
  const toggleHead = (h: number) => batch(() => {
    const s = stepper.step.value;
    const base = s === ALL_STEP ? enabled.value : HEADS.map((_, i) => i === s);
    enabled.value = base.map((on, i) => (i === h ? !on : on));
    stepper.playing.value = false;
    stepper.seek(ALL_STEP);
  });
  const select = (t: number | null) => (selected.value = t);

  syncHash(() => ({
    step: stepper.step.value,
    heads: enabled.value.map((on) => (on ? '1' : '0')).join(''),
    token: selected.value ?? 'none',
  }));
  return { figure: buildFigure(core), stepper, enabled, selected, error, toggleHead, select };
}

export type FigureState = ReturnType<typeof createFigureState>;

/** The heads drawn at a step: the one head, or those switched on. */
export const visibleHeads = (step: number, enabled: boolean[]) =>
  HEADS.map((_, h) => (step === ALL_STEP ? enabled[h] : h === step));
