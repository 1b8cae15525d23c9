// The state every configurable figure shares: the figure the core built from the reader's
// configuration, and the message of the last configuration the core rejected.
//   build      the figure for a configuration; throws (the core's attn::Error) when it is not allowed
//   initial    the configuration the page opens with
//   rejected   the words before the core's message, e.g. "The core rejected this launch"
//   place      runs with each new figure, in the same batch, to move the figure's stepper or clock
//              to where the new figure should open (`atStep` when the caller names a step); only
//              `configure` calls it, so it may use a stepper the figure creates from `figure` after this
// `configure(change, atStep)` builds the figure again with `change` applied. A rejected
// configuration leaves the last good figure on screen, so the page keeps working, and sets `error`.
import { batch, signal } from '@preact/signals';

export function createConfigured<C, F extends { config: C }>(
  build: (config: C) => F, initial: C, rejected: (config: C) => string, place: (next: F, change: Partial<C>, atStep?: number) => void,
) {
  const figure = signal<F>(build(initial));
  const error = signal<string | null>(null);
  const configure = (change: Partial<C>, atStep?: number) => {
    const config = { ...figure.value.config, ...change };
    let next: F;
    try {
      next = build(config);
    } catch (e) {
      error.value = `${rejected(config)}: ${(e as Error).message}`;
      return;
    }
    batch(() => {
      place(next, change, atStep);
      figure.value = next;
      error.value = null;
    });
  };
  return { figure, error, configure };
}
