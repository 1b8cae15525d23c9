// A scrubber over the steps of a trace: drag, click a labelled stop, or use the arrow keys.
// `stops={false}` keeps the range alone, for traces with too many steps to label each one.
// Over a Clock (stepper.ts), whose stops are times, the range runs over time, so its thumb sits
// where the figure's playhead does however unevenly the stops are spaced; dragging snaps to the
// nearest stop, and the arrow keys, Home and End move stop by stop.
import type { Clock, Stepper } from './stepper';

const isClock = (s: Stepper): s is Clock => 'time' in s;

// The index of the stop nearest time t (stops strictly increasing).
function nearestStop(stops: number[], t: number): number {
  let lo = 0, hi = stops.length - 1;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (stops[mid] < t) lo = mid + 1; else hi = mid; }
  return lo > 0 && t - stops[lo - 1] < stops[lo] - t ? lo - 1 : lo;
}

// The range takes its value as a string (see NumberSelect).
export function TimelineScrubber({ stepper, labels, stops = true }: { stepper: Stepper; labels: string[]; stops?: boolean }) {
  const { step, count } = stepper;
  const valuetext = `Step ${step.value + 1} of ${count.value}: ${labels[step.value] ?? ''}`;
  const seek = (i: number) => { stepper.playing.value = false; stepper.seek(i); };
  let range;
  if (isClock(stepper)) {
    const s = stepper.stops.value;
    const keys: Record<string, () => void> = {
      ArrowRight: stepper.next, ArrowUp: stepper.next, ArrowLeft: stepper.prev, ArrowDown: stepper.prev,
      Home: stepper.reset, End: () => seek(s.length - 1),
    };
    range = <input
      type="range" min={s[0]} max={s[s.length - 1]} step="any" value={String(stepper.time.value)}
      aria-label="Step" aria-valuetext={valuetext}
      onInput={(e) => {
        seek(nearestStop(s, Number(e.currentTarget.value)));
        // Snapped to a stop: the thumb too, also when that is the stop it was at (no re-render).
        e.currentTarget.value = String(stepper.time.value);
      }}
      onKeyDown={(e) => { const key = keys[e.key]; if (key) { e.preventDefault(); key(); } }}
    />;
  } else {
    range = <input
      type="range" min={0} max={count.value - 1} step={1} value={String(step.value)}
      aria-label="Step" aria-valuetext={valuetext}
      onInput={(e) => seek(Number(e.currentTarget.value))}
    />;
  }
  return (
    <div class="scrubber">
      {range}
      {stops && labels.length > 0 && <ol class="scrubber-stops">
        {labels.map((label, i) => (
          <li key={i}>
            <button type="button" class={i === step.value ? 'current' : i < step.value ? 'done' : ''}
              aria-current={i === step.value ? 'step' : undefined}
              onClick={() => seek(i)}>
              {label}
            </button>
          </li>
        ))}
      </ol>}
    </div>
  );
}
