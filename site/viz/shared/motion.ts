// Reduced motion: when the reader asks for it, animations snap to their end state.
import { signal } from '@preact/signals';
import { cubicBezier } from 'motion';
import { motionTokens } from './theme';

const query = window.matchMedia('(prefers-reduced-motion: reduce)');
export const reducedMotion = signal(query.matches);
query.addEventListener('change', (e) => (reducedMotion.value = e.matches));

/** The theme's easing curve (theme.json's motion.ease) as a function of progress in [0, 1], for
 *  the figures that tween on requestAnimationFrame rather than through CSS. */
export const themeEase = cubicBezier(...(motionTokens.ease as [number, number, number, number]));
