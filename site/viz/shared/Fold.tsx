// Fold: part of a figure shown in place on wide screens and folded behind a toggle below 640 px
// (`.fold-toggle` and `.folded` in base.css), so that a phone's frame shows the controls, the main
// drawing and the narration together without scrolling inside the frame. `more`/`fewer` are the
// toggle's words ("More controls" / "Fewer controls"); `always` folds it at every width.
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';

export function Fold({ more, fewer, always = false, class: extra = '', children }: {
  more: string; fewer: string; always?: boolean; class?: string; children: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return <>
    <button type="button" class={always ? 'fold-toggle always' : 'fold-toggle'} aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
      {open ? fewer : more}
    </button>
    <div id={id} class={`folded${always ? ' always' : ''}${open ? ' open' : ''} ${extra}`.trim()}>{children}</div>
  </>;
}
