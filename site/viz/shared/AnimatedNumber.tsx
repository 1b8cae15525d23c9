// A number that glides to its new value (motion's animate), or snaps under reduced motion.
import { animate } from 'motion';
import { useEffect, useRef } from 'preact/hooks';
import { fmt } from './format';
import { reducedMotion } from './motion';
import { motionTokens } from './theme';

export function AnimatedNumber({ value, digits = 3, class: className }: { value: number; digits?: number; class?: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  const shown = useRef(value);
  useEffect(() => {
    const el = ref.current!;
    const from = shown.current;
    if (reducedMotion.value || !Number.isFinite(from) || !Number.isFinite(value) || from === value) {
      shown.current = value;
      el.textContent = fmt(value, digits);
      return;
    }
    const controls = animate(from, value, {
      duration: 0.45,
      ease: motionTokens.ease as [number, number, number, number],
      onUpdate: (v) => { shown.current = v; el.textContent = fmt(v, digits); },
      onComplete: () => { shown.current = value; el.textContent = fmt(value, digits); },
    });
    return () => controls.stop();
  }, [value, digits]);
  // The final value is in the DOM from the first render, so tests and screen readers see it.
  return <span ref={ref} class={className} data-value={value}>{fmt(value, digits)}</span>;
}
