// Starts a figure: applies the theme, drops the figure's own title when it is embedded in another
// page's iframe (the host page shows it), waits for the part's WebAssembly module and renders. If
// the module cannot load, the page says so in place of the figure.
import { render, type VNode } from 'preact';
import { applyTheme } from './theme';
import './base.css';

export function mountFigure<Core>(core: Promise<Core>, view: (core: Core) => VNode): void {
  applyTheme();
  if (window.self !== window.top) document.documentElement.classList.add('embedded');
  const root = document.getElementById('app')!;
  core
    .then((c) => render(view(c), root))
    .catch((e: Error) => {
      root.textContent = `This figure could not start: ${e.message}`;
      root.classList.add('fatal');
    });
}
