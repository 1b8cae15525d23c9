// Play / Pause / step back / step forward / reset / speed, with keyboard shortcuts:
//   Space or K: play/pause   ← / →: step   Home: reset   End: last step   - / +: speed
// Shortcuts work anywhere in the figure except while typing in a text field.
import { useEffect } from 'preact/hooks';
import { Icon } from './icons';
import { NumberSelect } from './NumberSelect';
import { SPEEDS, type Stepper } from './stepper';

const isTextInput = (t: EventTarget | null) =>
  t instanceof HTMLInputElement ? !['range', 'button', 'checkbox'].includes(t.type) : t instanceof HTMLTextAreaElement;

export function PlayControls({ stepper }: { stepper: Stepper }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || isTextInput(e.target)) return;
      // A focused range input or button handles its own arrows and Space.
      const own = e.target instanceof HTMLInputElement || e.target instanceof HTMLButtonElement || e.target instanceof HTMLSelectElement;
      const actions: Record<string, () => void> = {
        ' ': stepper.toggle, k: stepper.toggle,
        ArrowRight: stepper.next, ArrowLeft: stepper.prev, Home: stepper.reset,
        End: () => { stepper.playing.value = false; stepper.seek(stepper.count.value - 1); },
        '+': stepper.faster, '=': stepper.faster, '-': stepper.slower,
      };
      const action = actions[e.key];
      if (!action || (own && (e.key === ' ' || e.key.startsWith('Arrow') || e.key === 'Home' || e.key === 'End'))) return;
      e.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [stepper]);

  const { step, count, playing, speed } = stepper;
  const atEnd = step.value >= count.value - 1;
  return (
    <div class="play-controls" role="group" aria-label="Playback">
      <button type="button" onClick={stepper.reset} aria-label="Reset to the first step (Home)" title="Reset (Home)" disabled={step.value === 0}><Icon name="reset" /></button>
      <button type="button" onClick={stepper.prev} aria-label="Step back (←)" title="Step back (←)" disabled={step.value === 0}><Icon name="back" /></button>
      <button type="button" class="primary" onClick={stepper.toggle} aria-label={playing.value ? 'Pause (Space)' : 'Play (Space)'} title={playing.value ? 'Pause (Space)' : 'Play (Space)'} aria-pressed={playing.value}>
        <Icon name={playing.value ? 'pause' : 'play'} />
      </button>
      <button type="button" onClick={stepper.next} aria-label="Step forward (→)" title="Step forward (→)" disabled={atEnd}><Icon name="forward" /></button>
      <label class="speed" title="Speed (+ / −)">
        <span class="visually-hidden">Speed</span>
        <NumberSelect value={speed.value} choices={SPEEDS} format={(s) => `${s}×`} onChange={(s) => (speed.value = s)} />
      </label>
    </div>
  );
}
