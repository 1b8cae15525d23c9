// The playback state of a sequential figure. A visualization renders trace[step]; Play, Pause,
// Step and the scrubber only move `step` -- they never compute anything themselves.
import { effect, signal, type Signal } from '@preact/signals';
import { motionTokens } from './theme';

export const SPEEDS = [0.5, 1, 2, 4] as const;

export interface Stepper {
  step: Signal<number>;
  count: Signal<number>;
  playing: Signal<boolean>;
  speed: Signal<number>;
  next(): void;
  prev(): void;
  seek(step: number): void;
  reset(): void;
  toggle(): void;
  faster(): void;
  slower(): void;
}

export function createStepper(initialCount: number, initialStep = 0): Stepper {
  const count = signal(initialCount);
  const step = signal(Math.min(Math.max(initialStep, 0), initialCount - 1));
  const playing = signal(false);
  const speed = signal(1);
  const last = () => count.value - 1;
  const seek = (s: number) => (step.value = Math.min(Math.max(Math.round(s), 0), last()));

  // While playing, advance every stepMs / speed; stop at the last step.
  effect(() => {
    if (!playing.value) return;
    const timer = window.setInterval(() => {
      if (step.value >= last()) playing.value = false;
      else step.value += 1;
    }, motionTokens.stepMs / speed.value);
    return () => window.clearInterval(timer);
  });

  const changeSpeed = (dir: 1 | -1) => {
    const i = SPEEDS.indexOf(speed.value as (typeof SPEEDS)[number]);
    speed.value = SPEEDS[Math.min(Math.max(i + dir, 0), SPEEDS.length - 1)];
  };

  return {
    step, count, playing, speed, seek,
    next: () => { playing.value = false; seek(step.value + 1); },
    prev: () => { playing.value = false; seek(step.value - 1); },
    reset: () => { playing.value = false; seek(0); },
    toggle: () => {
      if (!playing.value && step.value >= last()) seek(0);  // Play at the end starts over
      playing.value = !playing.value;
    },
    faster: () => changeSpeed(1),
    slower: () => changeSpeed(-1),
  };
}
