import { loadModule } from '../../../wasm/load';
import { mountFigure } from '../shared/mount';
import './style.css';
import { App } from './App';
import { createFigureState } from './state';

// The trained RNNsearch weights (make train), served from static/models/ at /models/, next to
// /wasm/ and /visualizations/ (resolved against the page, like the module).
const MODEL_URL = new URL('../../models/bahdanau-rnnsearch.bin', document.baseURI).href;

async function modelBytes(): Promise<Uint8Array> {
  const response = await fetch(MODEL_URL, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`the model's weights (${MODEL_URL}) did not load: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

const ready = Promise.all([loadModule('classic'), modelBytes()]);
mountFigure(ready, ([core, model]) => <App state={createFigureState(core, model)} />);
