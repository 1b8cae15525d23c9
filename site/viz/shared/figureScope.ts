// Effects a figure's state creates outside its components (playback timers, the hash writer) live
// as long as that state. When the figure restarts from a new URL hash (mount.tsx), the old state's
// effects are disposed here, so a figure that was playing stops and stops writing the hash.
import { effect } from '@preact/signals';

const open: (() => void)[] = [];

/** `effect`, disposed when the figure restarts. */
export function figureEffect(fn: Parameters<typeof effect>[0]): () => void {
  const dispose = effect(fn);
  open.push(dispose);
  return dispose;
}

export function disposeFigureEffects(): void {
  for (const dispose of open.splice(0)) dispose();
}
