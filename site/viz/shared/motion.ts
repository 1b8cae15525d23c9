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

/**
 * Whether a value shown with motion should snap to this render's value rather than glide: under
 * reduced motion, and when it changed within one glide of its last change (a reader scrubbing or
 * holding an arrow key: a glide would trail the reader, and each frame of one restyles what
 * moves). Called on every render; a render that leaves `value` as it was returns the last answer.
 */
export function useSnap(value: unknown): boolean {
  const last = useRef<{ value: unknown; at: number; snap: boolean } | null>(null);
  const now = performance.now();
  if (!last.current) last.current = { value, at: -Infinity, snap: true };
  else if (!Object.is(value, last.current.value)) last.current = { value, at: now, snap: now - last.current.at < GLIDE_MS };
  return last.current.snap || reducedMotion.value;
}

/** The theme's easing curve (theme.json's motion.ease) as a function of progress in [0, 1], for
 *  the figures that tween on requestAnimationFrame rather than through CSS. */
export const themeEase = cubicBezier(...(motionTokens.ease as [number, number, number, number]));
