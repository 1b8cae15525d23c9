import { render } from 'preact';
import { loadModule } from '../../../wasm/load';
import { applyTheme } from '../shared/theme';
import '../shared/base.css';
import './style.css';
import { App } from './App';
import { createFigureState } from './state';

applyTheme();
// Inside another page's iframe the host shows the title, so the figure drops its own.
if (window.self !== window.top) document.documentElement.classList.add('embedded');
const root = document.getElementById('app')!;
loadModule('flash')
  .then((core) => render(<App state={createFigureState(core)} />, root))
  .catch((e: Error) => {
    root.textContent = `This figure could not start: ${e.message}`;
    root.classList.add('fatal');
  });
