// A number that glides to its new value (motion's animate), or snaps under reduced motion.
// `format` (optional) turns the value into text, e.g. fmtBytes; by default fmt(value, digits).
import { animate } from 'motion';
import { useEffect, useRef } from 'preact/hooks';
import { fmt } from './format';
import { reducedMotion } from './motion';
import { motionTokens } from './theme';

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
    const controls = animate(from, value, {
      duration: 0.45,
      ease: motionTokens.ease as [number, number, number, number],
      onUpdate: (v) => { shown.current = v; el.textContent = text(v); },
      onComplete: () => { shown.current = value; el.textContent = text(value); },
    });
    return () => controls.stop();
  }, [value, digits, format]);
  // The final value is in the DOM from the first render, so tests and screen readers see it.
  return <span ref={ref} class={className} data-value={value}>{text(value)}</span>;
}
