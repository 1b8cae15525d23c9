// A formula rendered by KaTeX at build time (see katex-prerender.ts) with live values shown in its
// \slot{name} placeholders on every render. Only values whose text changed are written.
//
// A value is not written into the formula itself: KaTeX's markup is a hundred-odd nested boxes,
// many of them relatively positioned, and a change of text inside it lays out and repaints much of
// the formula around it (about a tenth of the tiling figure's time per step, in Chromium). The
// placeholder keeps its place in the formula (its glyph hidden), and the value is drawn in a box
// laid over it: absolutely positioned over the placeholder, with size, layout and paint contained,
// so that a new value lays out and repaints that box alone.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { setText } from './setText';

// A placeholder keeps the width of the widest value it has shown, so once the values have ranged
// the formula stops shifting as they change. The width is kept in em, so it scales with the
// formula's font size. Observed: each value's text, whose width follows its content.
const keepWidest = new ResizeObserver((entries) => {
  for (const { target, borderBoxSize } of entries) {
    const placeholder = target.closest<HTMLElement>('[data-slot]')!, width = borderBoxSize[0]?.inlineSize ?? 0;
    const em = width / parseFloat(getComputedStyle(placeholder).fontSize);
    if (em > (parseFloat(placeholder.style.minWidth) || 0)) placeholder.style.minWidth = `${em.toFixed(3)}em`;
  }
});

interface Slot { name: string; text: HTMLElement }

export function EquationCallout({ html, values, caption }: { html: string; values: Record<string, string>; caption?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // The formula's value boxes, made once per formula: values are written on every render.
  const slots = useRef<Slot[]>([]);
  useLayoutEffect(() => {
    slots.current = [...(ref.current?.querySelectorAll<HTMLElement>('[data-slot]') ?? [])].map((placeholder) => {
      const box = document.createElement('span'), text = document.createElement('span');
      box.className = 'slot-value';
      text.className = 'slot-text';
      box.append(text);
      placeholder.append(box);
      keepWidest.observe(text);
      return { name: placeholder.dataset.slot!, text };
    });
    const made = slots.current;
    return () => made.forEach(({ text }) => { keepWidest.unobserve(text); text.parentElement!.remove(); });
  }, [html]);
  useLayoutEffect(() => {
    for (const { name, text } of slots.current) {
      const v = values[name];
      if (v === undefined) throw new Error(`EquationCallout: no value for slot "${name}"`);
      setText(text, v);
    }
  });
  return (
    <figure class="equation">
      <div class="equation-body" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />
      {caption && <figcaption>{caption}</figcaption>}
    </figure>
  );
}
