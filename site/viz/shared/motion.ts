// Reduced motion: when the reader asks for it, animations snap to their end state.
import { signal } from '@preact/signals';

const query = window.matchMedia('(prefers-reduced-motion: reduce)');
export const reducedMotion = signal(query.matches);
query.addEventListener('change', (e) => (reducedMotion.value = e.matches));
