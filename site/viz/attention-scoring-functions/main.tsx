import { loadModule } from '../../../wasm/load';
import { readHash } from '../shared/hashState';
import { mountFigure } from '../shared/mount';
import './style.css';
import { App } from './App';
import { buildExampleOffThread, DEFAULT_SEED } from './model';
import { createFigureState } from './state';

// The first example (100-180 ms of WebAssembly) is computed in a worker while the page loads, so it
// does not block the page -- nor, in a post, the article around the frame. The seed is the hash's;
// one the core refuses opens the default, and the figure then shows the refusal (state.ts).
const asked = readHash().seed;
const first = buildExampleOffThread(asked === undefined ? DEFAULT_SEED : Number(asked))
  .catch(() => buildExampleOffThread(DEFAULT_SEED));
const ready = Promise.all([loadModule('classic'), first]).then(([core, example]) => ({ core, example }));
mountFigure(ready, ({ core, example }) => <App state={createFigureState(core, example)} />);
