import { loadModule } from '../../../wasm/load';
import { mountFigure } from '../shared/mount';
import './style.css';
import { App } from './App';
import { computeOffThread, DEFAULT_CONFIG } from './model';
import { createFigureState } from './state';

// The opening configuration's nine methods (about 100 ms of WebAssembly) run in a worker while the
// page loads, instead of blocking it -- and, in a post, the article around the frame. Their results
// are kept, so the figure draws from them; were the worker to fail, the figure computes them itself.
const ready = loadModule('classic').then(async (core) => {
  await computeOffThread(core, DEFAULT_CONFIG).catch(() => {});
  return core;
});
mountFigure(ready, (core) => <App state={createFigureState(core)} />);
