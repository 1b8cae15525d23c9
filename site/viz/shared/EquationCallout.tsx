// A formula rendered by KaTeX at build time (see katex-prerender.ts) with live values shown in its
// \slot{name} placeholders on every render. Only values whose text changed are written.
//
// A value is not written into the formula: KaTeX's markup is a hundred-odd nested boxes, many of
// them relatively positioned, and any change inside it makes the browser lay out and re-record the
// paint of the whole formula around it (about a quarter of the tiling figure's main-thread time
// per step, in Chromium, when the values sat inside the placeholders). The placeholder keeps its
// place in the formula (its glyph hidden); each value is drawn in a box beside the formula, not
// inside it, laid over its placeholder by position and contained, and the formula is a paint layer
// of its own. A new value then lays out and repaints its box alone, and the formula's painting is
// reused as it is. The boxes are placed again only when the formula's geometry changes: its size,
// a font arriving, or a placeholder widening for a longer value.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { setText } from './setText';

interface Slot { name: string; placeholder: HTMLElement; box: HTMLElement; text: HTMLElement }

// Lays each value's box over its placeholder, in the coordinates of the formula's body (the boxes'
// containing block), in the placeholder's font, so the value sits where KaTeX set the glyph.
function place(body: HTMLElement, slots: Slot[]) {
  const origin = body.getBoundingClientRect();
  for (const { placeholder, box } of slots) {
    const r = placeholder.getBoundingClientRect(), f = getComputedStyle(placeholder);
    Object.assign(box.style, {
      left: `${r.left - origin.left}px`, top: `${r.top - origin.top}px`, width: `${r.width}px`, height: `${r.height}px`,
      fontFamily: f.fontFamily, fontSize: f.fontSize, fontStyle: f.fontStyle, fontWeight: f.fontWeight, lineHeight: f.lineHeight,
    });
  }
}

// A placeholder keeps the width of the widest value it has shown, so once the values have ranged
// the formula stops shifting as they change. The width is kept in em, so it scales with the
// formula's font size. Observed: each value's text, whose width follows its content; a placeholder
// that widens moves what follows it, so its formula's boxes are placed again.
const owners = new WeakMap<Element, { slot: Slot; replace: () => void }>();
const keepWidest = new ResizeObserver((entries) => {
  const moved = new Set<() => void>();
  for (const { target, borderBoxSize } of entries) {
    const owner = owners.get(target);
    if (!owner) continue;
    const { placeholder } = owner.slot, width = borderBoxSize[0]?.inlineSize ?? 0;
    // Rounded up: a width stored rounded down would read as wider than the placeholder every
    // time that value came back, and place the formula's boxes again (a forced layout) each time.
    const em = Math.ceil((width / parseFloat(getComputedStyle(placeholder).fontSize)) * 1000) / 1000;
    if (em > (parseFloat(placeholder.style.minWidth) || 0)) {
      placeholder.style.minWidth = `${em}em`;
      moved.add(owner.replace);
    }
  }
  moved.forEach((replace) => replace());
});

export function EquationCallout({ html, values, caption }: { html: string; values: Record<string, string>; caption?: string }) {
  const body = useRef<HTMLDivElement>(null);
  const formula = useRef<HTMLDivElement>(null);
  // The formula's value boxes, made once per formula: values are written on every render.
  const slots = useRef<Slot[]>([]);
  useLayoutEffect(() => {
    const root = body.current!;
    const made = [...formula.current!.querySelectorAll<HTMLElement>('[data-slot]')].map((placeholder) => {
      const box = document.createElement('span'), text = document.createElement('span');
      box.className = 'slot-value';
      box.setAttribute('data-value-of', placeholder.dataset.slot!);
      // Hidden from assistive technology, as KaTeX's drawn formula around the placeholder is.
      box.setAttribute('aria-hidden', 'true');
      text.className = 'slot-text';
      box.append(text);
      root.append(box);
      return { name: placeholder.dataset.slot!, placeholder, box, text };
    });
    slots.current = made;
    const replace = () => place(root, made);
    for (const slot of made) {
      owners.set(slot.text, { slot, replace });
      keepWidest.observe(slot.text);
    }
    // The formula's size changes with the frame's width and font size, and when a folded panel
    // holding it opens (from nothing); fonts arriving late move the glyphs without resizing it.
    const resized = new ResizeObserver(replace);
    resized.observe(formula.current!);
    document.fonts.addEventListener('loadingdone', replace);
    replace();
    return () => {
      resized.disconnect();
      document.fonts.removeEventListener('loadingdone', replace);
      made.forEach(({ box, text }) => { keepWidest.unobserve(text); box.remove(); });
    };
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
      <div class="equation-body" ref={body}>
        <div class="equation-formula" ref={formula} dangerouslySetInnerHTML={{ __html: html }} />
      </div>
      {caption && <figcaption>{caption}</figcaption>}
    </figure>
  );
}
