// A number that glides to its new value, or snaps under reduced motion. `format` (optional) turns
// the value into text, e.g. fmtBytes; by default fmt(value, digits). The glide is a plain
// requestAnimationFrame tween on the theme's easing curve, writing the span's text node directly:
// a figure starts several of these per step, and a full animation engine per number costs more to
// start than the whole re-render it decorates. The glide starts in a layout effect, before the
// frame is painted, so the new value Preact renders is never shown ahead of the glide towards it.
// A value that comes within one glide of the last change (a reader scrubbing, holding an arrow
// key) snaps: a glide would trail the reader, and each frame of one rewrites and re-lays out text.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { fmt } from './format';
import { GLIDE_MS, themeEase as ease, useSnap } from './motion';
import { setText } from './setText';

export function AnimatedNumber({ value, digits = 3, format, class: className }: {
  value: number; digits?: number; format?: (v: number) => string; class?: string;
}) {
  const text = (v: number) => (format ? format(v) : fmt(v, digits));
  const ref = useRef<HTMLSpanElement>(null);
  const shown = useRef(value);
  const snap = useSnap(value);
  useLayoutEffect(() => {
    const el = ref.current!;
    const from = shown.current;
    const start = performance.now();
    if (snap || !Number.isFinite(from) || !Number.isFinite(value) || from === value) {
      shown.current = value;
      setText(el, text(value));
      return;
    }
    let frame = 0;
    const tick = (now: number) => {
      const p = Math.min(1, Math.max(0, (now - start) / GLIDE_MS));
      shown.current = p < 1 ? from + (value - from) * ease(p) : value;
      setText(el, text(shown.current));
      if (p < 1) frame = requestAnimationFrame(tick);
    };
    tick(start);
    return () => cancelAnimationFrame(frame);
  }, [value, digits, format]);
  // data-value holds the exact value at once; the text reaches it when the glide ends.
  return <span ref={ref} class={className} data-value={value}>{text(value)}</span>;
}
