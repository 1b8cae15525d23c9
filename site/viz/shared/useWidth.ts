// useWidth: the content-box width of an element, kept current by a ResizeObserver, so a figure can
// draw its SVG or canvas in CSS pixels (text stays readable at 375 px) instead of shrinking it
// through a viewBox. Returns [ref to attach, width]; `initial` is used until the first measure.
// Only a change of width re-renders: figures grow taller when their content does (a larger N, more
// lanes), and re-rendering the figure again for its own new height would double the cost of the
// change that caused it. A width of 0 (the element not laid out: a frame still loading, a hidden
// panel) is not taken: a drawing sized for no room computes negative sizes, and none is seen.
import type { RefObject } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function useWidth<E extends HTMLElement>(initial = 640): [RefObject<E | null>, number] {
  const ref = useRef<E>(null);
  const [width, setWidth] = useState(initial);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const take = (w: number) => { if (w >= 1) setWidth(Math.round(w)); };
    take(el.getBoundingClientRect().width);
    const observer = new ResizeObserver(([entry]) => take(entry.contentRect.width));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}
