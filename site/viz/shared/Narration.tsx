// The narration line of a figure (aria-live, so a screen reader hears each step). Every figure
// opens at its first step (unless its URL hash names another state), and until the reader moves
// it, this line says what to look for in place of the first step's narration.
import type { Stepper } from './stepper';

export function Narration({ stepper, lookFor, text }: { stepper: Stepper; lookFor: string; text: () => string }) {
  return (
    <p class="narration" aria-live="polite" data-testid="narration">
      {stepper.fresh.value ? <><strong class="look-for">Look for:</strong> {lookFor}</> : text()}
    </p>
  );
}
