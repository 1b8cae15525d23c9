// A scrubber over the steps of a trace: drag, click a labelled stop, or use the arrow keys.
// `stops={false}` keeps the range alone, for traces with too many steps to label each one.
import type { Stepper } from './stepper';

// The range takes its value as a string (see NumberSelect).
export function TimelineScrubber({ stepper, labels, stops = true }: { stepper: Stepper; labels: string[]; stops?: boolean }) {
  const { step, count } = stepper;
  return (
    <div class="scrubber">
      <input
        type="range" min={0} max={count.value - 1} step={1} value={String(step.value)}
        aria-label="Step" aria-valuetext={`Step ${step.value + 1} of ${count.value}: ${labels[step.value] ?? ''}`}
        onInput={(e) => { stepper.playing.value = false; stepper.seek(Number(e.currentTarget.value)); }}
      />
      {stops && labels.length > 0 && <ol class="scrubber-stops">
        {labels.map((label, i) => (
          <li key={i}>
            <button type="button" class={i === step.value ? 'current' : i < step.value ? 'done' : ''}
              aria-current={i === step.value ? 'step' : undefined}
              onClick={() => { stepper.playing.value = false; stepper.seek(i); }}>
              {label}
            </button>
          </li>
        ))}
      </ol>}
    </div>
  );
}
