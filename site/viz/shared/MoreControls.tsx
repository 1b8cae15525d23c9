// MoreControls: the secondary settings of a figure, shown inline on wide screens and folded behind
// a "More controls" button below 640 px (`.more-toggle` and `.secondary` in base.css), so a phone
// shows the main setting and the figure before a wall of selects.
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';

export function MoreControls({ children }: { children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return <>
    <button type="button" class="more-toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
      {open ? 'Fewer controls' : 'More controls'}
    </button>
    <div id={id} class={open ? 'secondary open' : 'secondary'}>{children}</div>
  </>;
}
