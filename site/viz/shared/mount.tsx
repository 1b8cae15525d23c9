// Starts a figure: applies the theme, waits for the part's WebAssembly module and renders. If the
// module cannot load, the page says so in place of the figure. When the URL hash changes (a link,
// the reader, or the host page following a post's deep link), the figure restarts from it.
//
// Embedded in a page of this site, the figure drops its own title (the viz shortcode's bar shows
// it). Framed by another site it keeps its title and adds a small "from <site> ↗" link to the post
// it belongs to (embedSource.ts). Embedded anywhere, it tells the host page its height whenever that
// changes, so a host that listens (the viz shortcode's script, or the snippet in the README) can
// size the frame to the figure instead of making the reader scroll inside it.
import { render, type VNode } from 'preact';
import { sharingWindow } from '../../../wasm/load';
import { showEmbedSource } from './embedSource';
import { disposeFigureEffects } from './figureScope';
import { applyTheme } from './theme';
import './base.css';
import './embed.css';

export function mountFigure<Core>(core: Promise<Core>, view: (core: Core) => VNode): void {
  applyTheme();
  const root = document.getElementById('app')!;
  if (window.self !== window.top) {
    document.documentElement.classList.add('embedded');
    // The topmost window of this origin is not the top: another site frames the figure.
    if (sharingWindow() !== window.top) {
      document.documentElement.classList.add('embedded-elsewhere');
      void showEmbedSource(root);
    }
    reportHeight(root);
  }
  core
    .then((c) => {
      const start = () => {
        disposeFigureEffects();
        render(null, root);
        render(view(c), root);
      };
      start();
      window.addEventListener('hashchange', start);
    })
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
