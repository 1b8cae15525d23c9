// Starts a figure: applies the theme, drops the figure's own title when it is embedded in another
// page's iframe (the host page shows it), waits for the part's WebAssembly module and renders. If
// the module cannot load, the page says so in place of the figure. Embedded, it also tells the host
// page its height whenever that changes, so a host that listens (the viz shortcode's script) can
// size the frame to the figure instead of making the reader scroll inside it.
import { render, type VNode } from 'preact';
import { applyTheme } from './theme';
import './base.css';

export function mountFigure<Core>(core: Promise<Core>, view: (core: Core) => VNode): void {
  applyTheme();
  const root = document.getElementById('app')!;
  if (window.self !== window.top) {
    document.documentElement.classList.add('embedded');
    reportHeight(root);
  }
  core
    .then((c) => render(view(c), root))
    .catch((e: Error) => {
      root.textContent = `This figure could not start: ${e.message}`;
      root.classList.add('fatal');
    });
}

// The figure's height, not the document's: the page is at least as tall as its frame (min-height:
// 100vh), which would keep a frame from ever shrinking. Only a number is sent, so any host may read it.
function reportHeight(root: HTMLElement): void {
  let sent = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(root.getBoundingClientRect().bottom + window.scrollY);
    if (height === sent) return;
    sent = height;
    window.parent.postMessage({ type: 'viz:height', height }, '*');
  }).observe(root);
}
