// The playback state of a sequential figure. A visualization renders trace[step]; Play, Pause,
// Step and the scrubber only move `step` -- they never compute anything themselves.
import { signal, type Signal } from '@preact/signals';
import { figureEffect } from './figureScope';
import { reducedMotion } from './motion';
import { motionTokens } from './theme';

export const SPEEDS = [0.5, 1, 2, 4] as const;

// `fresh` (true when the figure opens at its first step) turns false, for good, the first time
// `position` (the step or the time) changes.
function freshUntilMoved(position: Signal<number>, atFirstStep: boolean): Signal<boolean> {
  const fresh = signal(atFirstStep);
  let opened = false;
  figureEffect(() => {
    position.value;
    if (opened) fresh.value = false;
    opened = true;
  });
  return fresh;
}

// Under reduced motion Play jumps instead of animating, one jump per stepMs; a trace with many
// steps then takes coarser jumps, so that playing it through at 1x takes at most this long.
export const REDUCED_PLAY_MS = 24000;
const reducedStride = (steps: number) => Math.max(1, Math.ceil((steps * motionTokens.stepMs) / REDUCED_PLAY_MS));

export interface Stepper {
  step: Signal<number>;
  /** True while the figure is as it opened: nothing has moved it since (see Narration.tsx). */
  fresh: Signal<boolean>;
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

  // While playing, advance every stepMs / speed (by a stride under reduced motion); stop at the last step.
  figureEffect(() => {
    if (!playing.value) return;
    const stride = reducedMotion.value ? reducedStride(last()) : 1;
    const timer = window.setInterval(() => {
      if (step.value >= last()) playing.value = false;
      else seek(step.value + stride);
    }, motionTokens.stepMs / speed.value);
    return () => window.clearInterval(timer);
  });

  const changeSpeed = (dir: 1 | -1) => {
    const i = SPEEDS.indexOf(speed.value as (typeof SPEEDS)[number]);
    speed.value = SPEEDS[Math.min(Math.max(i + dir, 0), SPEEDS.length - 1)];
  };

  return {
    step, count, playing, speed, seek, fresh: freshUntilMoved(step, step.value === 0),
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

// A stepper whose position is continuous: `time` runs from stops[0] to the last stop, and `step`
// is the last stop reached. Play sweeps time at a constant rate (the whole range in playMs at 1x),
// so intervals between stops keep their true proportions; Step, the scrubber and Home/End jump
// between stops. Under reduced motion, Play jumps from stop to stop instead of sweeping, skipping
// stops where there are too many to play through in REDUCED_PLAY_MS.
export interface Clock extends Stepper {
  time: Signal<number>;
  stops: Signal<number[]>;
  /** Replaces the stops (strictly increasing, at least one) and moves time to stop `atStep`. */
  setStops(stops: number[], atStep: number): void;
}

export function createClock(initialStops: number[], initialStep = 0, playMs = 9000): Clock {
  const stops = signal(initialStops);
  const count = signal(initialStops.length);
  const clampStep = (s: number) => (Number.isFinite(s) ? Math.min(Math.max(Math.round(s), 0), count.value - 1) : 0);
  const time = signal(initialStops[clampStep(initialStep)]);
  const step = signal(clampStep(initialStep));
  const playing = signal(false);
  const speed = signal(1);
  const first = () => stops.value[0];
  const last = () => stops.value[stops.value.length - 1];
  const eps = () => (last() - first()) * 1e-9;

  // step = the last stop at or before time (binary search: launches can have hundreds of waves).
  figureEffect(() => {
    const t = time.value + eps(), s = stops.value;
    let lo = 0, hi = s.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (s[mid] <= t) lo = mid; else hi = mid - 1; }
    step.value = lo;
  });

  const seek = (i: number) => { time.value = stops.value[clampStep(i)]; };
  const forward = () => {
    const next = stops.value.find((x) => x > time.value + eps());
    time.value = next ?? last();
  };

  figureEffect(() => {
    if (!playing.value) return;
    if (reducedMotion.value) {
      // Each jump covers at least the time one stride of the whole range would, to the next stop.
      const span = (last() - first()) / Math.ceil(REDUCED_PLAY_MS / motionTokens.stepMs);
      const timer = window.setInterval(() => {
        if (time.value >= last() - eps()) { playing.value = false; return; }
        const target = time.value + span - eps();
        time.value = stops.value.find((x) => x >= target) ?? last();
      }, motionTokens.stepMs / speed.value);
      return () => window.clearInterval(timer);
    }
    let frame = 0, before = performance.now();
    const tick = (now: number) => {
      const t = time.value + ((now - before) / playMs) * speed.value * (last() - first());
      before = now;
      if (t >= last()) { time.value = last(); playing.value = false; return; }
      time.value = t;
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  });

  const changeSpeed = (dir: 1 | -1) => {
    const i = SPEEDS.indexOf(speed.value as (typeof SPEEDS)[number]);
    speed.value = SPEEDS[Math.min(Math.max(i + dir, 0), SPEEDS.length - 1)];
  };

  return {
    step, count, playing, speed, time, stops, seek, fresh: freshUntilMoved(time, step.value === 0),
    setStops: (s: number[], atStep: number) => {
      playing.value = false;
      stops.value = s;
      count.value = s.length;
      seek(atStep);
    },
    next: () => { playing.value = false; forward(); },
    prev: () => {
      playing.value = false;
      const before = stops.value.filter((x) => x < time.value - eps());
      time.value = before.length ? before[before.length - 1] : first();
    },
    reset: () => { playing.value = false; time.value = first(); },
    toggle: () => {
      if (!playing.value && time.value >= last() - eps()) time.value = first();  // Play at the end starts over
      playing.value = !playing.value;
    },
    faster: () => changeSpeed(1),
    slower: () => changeSpeed(-1),
  };
}
