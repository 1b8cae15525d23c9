// Reduced motion: when the reader asks for it, animations snap to their end state.
import { signal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { cubicBezier } from 'motion';
import { motionTokens } from './theme';

const query = window.matchMedia('(prefers-reduced-motion: reduce)');
export const reducedMotion = signal(query.matches);
query.addEventListener('change', (e) => (reducedMotion.value = e.matches));

/** How long a changing value takes to glide to its new value (a number, a bar's fill), in ms. */
export const GLIDE_MS = 450;

// When the figure's shown values last changed, as batches: every value a render changes (one
// step, one setting) belongs to the batch that render opened, which closes at the end of its
// microtask. `previous` is the batch before the current one.
const changes = { current: -Infinity, previous: -Infinity, open: false };
function noteChange(now: number) {
  if (changes.open) return;
  changes.open = true;
  queueMicrotask(() => (changes.open = false));
  changes.previous = changes.current;
  changes.current = now;
}

/**
 * Whether a value shown with motion should snap to this render's value rather than glide: under
 * reduced motion, and when the figure changed within one glide before this change (a reader
 * stepping quickly, scrubbing or holding an arrow key: a glide would trail the reader, and each
 * frame of one restyles what moves). The figure's changes count, not the value's own: a value that
 * changes on one step in six (bytes written) glided on its own clock while the reader stepped
 * quickly, and starting those glides and flashes cost each such step about 0.6 ms of main-thread
 * time in its next frame (tiling figure, 1x). Called on every render; a render that leaves `value`
 * as it was returns the last answer.
 */
export function useSnap(value: unknown): boolean {
  const last = useRef<{ value: unknown; snap: boolean } | null>(null);
  if (!last.current) last.current = { value, snap: true };
  else if (!Object.is(value, last.current.value)) {
    const now = performance.now();
    noteChange(now);
    last.current = { value, snap: now - changes.previous < GLIDE_MS };
  }
  return last.current.snap || reducedMotion.value;
}

/** The theme's easing curve (theme.json's motion.ease) as a function of progress in [0, 1], for
 *  the figures that tween on requestAnimationFrame rather than through CSS. */
export const themeEase = cubicBezier(...(motionTokens.ease as [number, number, number, number]));
