// A formula rendered by KaTeX at build time (see katex-prerender.ts) with live values written
// into its \slot{name} placeholders on every render. Only slots whose text changed are written:
// writing a slot, even with the same text, makes the browser lay the whole formula out again.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { setText } from './setText';

export function EquationCallout({ html, values, caption }: { html: string; values: Record<string, string>; caption?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    for (const el of ref.current?.querySelectorAll<HTMLElement>('[data-slot]') ?? []) {
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
