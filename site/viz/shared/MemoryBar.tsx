// MemoryBar: an animated bytes bar with a counter, for HBM/SRAM/L2 traffic or footprints.
//   label      what the bytes are ("HBM written", "SRAM held")
//   bytes      the current value; the counter glides to it (AnimatedNumber), the fill follows
//   capacity   optional: the fill is bytes / capacity and the text reads "x of capacity"
//   scale      optional, when there is no capacity: the bytes of a full bar, so several bars (or
//              one bar across modes) share a scale; without either the fill is empty
//   color      the fill colour, a CSS colour or custom property (e.g. colors.hbm or 'var(--hbm)')
//   pulseAbove the bar flashes when bytes rises by at least this much in one update (default 1:
//              any rise; Infinity: never); reduced motion, and quick changes (useSnap), drop the flash
//   note       optional small text after the counter ("flat: S and P stay on chip")
// The fill is a CSS transform, so updates cost no layout; data-bytes carries the exact value for tests.
import { useEffect, useRef } from 'preact/hooks';
import { AnimatedNumber } from './AnimatedNumber';
import { fmtBytes } from './format';
import { useSnap } from './motion';

export interface MemoryBarProps {
  label: string;
  bytes: number;
  capacity?: number;
  scale?: number;
  color?: string;
  pulseAbove?: number;
  note?: string;
  class?: string;
}

export function MemoryBar({ label, bytes, capacity, scale, color = 'var(--active)', pulseAbove = 1, note, class: className }: MemoryBarProps) {
  const flashRef = useRef<HTMLDivElement>(null);
  const last = useRef(bytes);
  const full = capacity ?? scale ?? 0;
  const fraction = full > 0 ? Math.min(Math.max(bytes / full, 0), 1) : 0;
  // The fill glides as the counter does, and snaps when the counter does (useSnap).
  const snap = useSnap(bytes);

  // The flash is an opacity animation of a layer over the track: the compositor runs it, with no
  // repaint per frame (a filter or box-shadow animation would repaint the bar on every frame).
  useEffect(() => {
    const rise = bytes - last.current;
    last.current = bytes;
    const el = flashRef.current;
    if (!el || rise < pulseAbove || snap || typeof el.animate !== 'function') return;
    el.animate([{ opacity: 0.9 }, { opacity: 0 }], { duration: 520, easing: 'cubic-bezier(0.22, 1, 0.36, 1)' });
  }, [bytes, pulseAbove]);

  return (
    <div class={`memory-bar${className ? ' ' + className : ''}`} data-bytes={bytes}>
      <div class="memory-bar-text">
        <span class="memory-bar-label">{label}</span>
        <span class="memory-bar-value">
          <AnimatedNumber value={bytes} format={fmtBytes} />
          {capacity !== undefined && <span class="memory-bar-capacity"> of {fmtBytes(capacity)}</span>}
        </span>
      </div>
      <div class="memory-bar-track" role="meter" aria-label={label}
        aria-valuemin={0} aria-valuemax={full || undefined} aria-valuenow={bytes} aria-valuetext={fmtBytes(bytes)}>
        <div class="memory-bar-fill" style={{ transform: `scaleX(${fraction})`, background: color, transition: snap ? 'none' : undefined }} />
        <div class="memory-bar-flash" ref={flashRef} style={{ background: color }} />
      </div>
      {note && <div class="memory-bar-note">{note}</div>}
    </div>
  );
}
