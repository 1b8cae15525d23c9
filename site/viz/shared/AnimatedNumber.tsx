// A number that glides to its new value, or snaps under reduced motion. `format` (optional) turns
// the value into text, e.g. fmtBytes; by default fmt(value, digits). The glide is a plain
// requestAnimationFrame tween on the theme's easing curve, writing the span's text directly: a
// figure starts several of these per step, and a full animation engine per number costs more to
// start than the whole re-render it decorates.
import { cubicBezier } from 'motion';
import { useEffect, useRef } from 'preact/hooks';
import { fmt } from './format';
import { reducedMotion } from './motion';
import { motionTokens } from './theme';

const GLIDE_MS = 450;
const ease = cubicBezier(...(motionTokens.ease as [number, number, number, number]));

export function AnimatedNumber({ value, digits = 3, format, class: className }: {
  value: number; digits?: number; format?: (v: number) => string; class?: string;
}) {
  const text = (v: number) => (format ? format(v) : fmt(v, digits));
  const ref = useRef<HTMLSpanElement>(null);
  const shown = useRef(value);
  useEffect(() => {
    const el = ref.current!;
    const from = shown.current;
    if (reducedMotion.value || !Number.isFinite(from) || !Number.isFinite(value) || from === value) {
      shown.current = value;
      el.textContent = text(value);
      return;
    }
    const start = performance.now();
    let frame = 0;
    const tick = (now: number) => {
      const p = Math.min(1, Math.max(0, (now - start) / GLIDE_MS));
      shown.current = p < 1 ? from + (value - from) * ease(p) : value;
      el.textContent = text(shown.current);
      if (p < 1) frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [value, digits, format]);
  // The final value is in the DOM from the first render, so tests and screen readers see it.
  return <span ref={ref} class={className} data-value={value}>{text(value)}</span>;
}
