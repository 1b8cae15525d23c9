// A formula rendered by KaTeX at build time (see katex-prerender.ts) with live values written
// into its \slot{name} placeholders on every render. Only slots whose text changed are written:
// writing a slot, even with the same text, makes the browser lay the whole formula out again.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { setText } from './setText';

// A slot keeps the width of the widest value it has shown, so once the values have ranged the
// formula stops shifting as they change: the eye stays on the numbers, and a new value re-lays-out
// and repaints its slot rather than everything after it. The width is kept in em, so it scales
// with the formula's font size.
const keepWidest = new ResizeObserver((entries) => {
  for (const { target, borderBoxSize } of entries) {
    const el = target as HTMLElement, width = borderBoxSize[0]?.inlineSize ?? 0;
    const em = width / parseFloat(getComputedStyle(el).fontSize);
    if (em > (parseFloat(el.style.minWidth) || 0)) el.style.minWidth = `${em.toFixed(3)}em`;
  }
});

export function EquationCallout({ html, values, caption }: { html: string; values: Record<string, string>; caption?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // The formula's slots, found once per formula: values are written on every render.
  const slots = useRef<HTMLElement[]>([]);
  useLayoutEffect(() => {
    const found = [...(ref.current?.querySelectorAll<HTMLElement>('[data-slot]') ?? [])];
    slots.current = found;
    found.forEach((el) => keepWidest.observe(el));
    return () => found.forEach((el) => keepWidest.unobserve(el));
  }, [html]);
  useLayoutEffect(() => {
    for (const el of slots.current) {
      const v = values[el.dataset.slot!];
      if (v === undefined) throw new Error(`EquationCallout: no value for slot "${el.dataset.slot}"`);
      setText(el, v);
    }
  });
  return (
    <figure class="equation">
      <div class="equation-body" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />
      {caption && <figcaption>{caption}</figcaption>}
    </figure>
  );
}
