// useResize: the content-box size of an element, kept current by a ResizeObserver, so a figure can
// draw its SVG in CSS pixels (text stays readable at 375 px) instead of shrinking it through a
// viewBox. Returns [ref to attach, { width, height }]; `initial` is used until the first measure.
import type { RefObject } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface Size { width: number; height: number }

export function useResize<E extends HTMLElement>(initial: Size = { width: 640, height: 0 }): [RefObject<E | null>, Size] {
  const ref = useRef<E>(null);
  const [size, setSize] = useState<Size>(initial);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = (width: number, height: number) =>
      setSize((old) => (old.width === width && old.height === height ? old : { width, height }));
    const rect = el.getBoundingClientRect();
    update(Math.round(rect.width), Math.round(rect.height));
    const observer = new ResizeObserver(([entry]) => update(Math.round(entry.contentRect.width), Math.round(entry.contentRect.height)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, size];
}
