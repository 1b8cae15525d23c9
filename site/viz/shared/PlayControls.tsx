// Play / Pause / step back / step forward / reset / speed, with keyboard shortcuts:
//   Space or K: play/pause   ← / →: step   Home: reset   End: last step   - / +: speed
// Shortcuts work wherever focus is inside the figure, on a button too (Space there plays or pauses
// instead of pressing the button; Enter still presses it), except where a control needs the key
// for itself: text fields and selects keep every key; checkboxes keep Space; sliders keep the
// arrows and Home/End; a radio group (Segmented) keeps the arrows, which move its choice.
import { useEffect } from 'preact/hooks';
import { Icon } from './icons';
import { NumberSelect } from './NumberSelect';
import { SPEEDS, type Stepper } from './stepper';

const ownsKey = (target: EventTarget | null, key: string): boolean => {
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLElement && target.closest('[role="radiogroup"]')) return key.startsWith('Arrow');
  if (!(target instanceof HTMLInputElement)) return false;
  if (target.type === 'checkbox' || target.type === 'radio') return key === ' ' || (target.type === 'radio' && key.startsWith('Arrow'));
  if (target.type === 'range') return key.startsWith('Arrow') || key === 'Home' || key === 'End' || key.startsWith('Page');
  return target.type !== 'button';  // a text-like field
};

export function PlayControls({ stepper }: { stepper: Stepper }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || ownsKey(e.target, e.key)) return;
      const actions: Record<string, () => void> = {
        ' ': stepper.toggle, k: stepper.toggle,
        ArrowRight: stepper.next, ArrowLeft: stepper.prev, Home: stepper.reset,
        End: () => { stepper.playing.value = false; stepper.seek(stepper.count.value - 1); },
        '+': stepper.faster, '=': stepper.faster, '-': stepper.slower,
      };
      const action = actions[e.key];
      if (!action) return;
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
