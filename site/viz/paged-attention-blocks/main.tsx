import { loadModule } from '../../../wasm/load';
import { mountFigure } from '../shared/mount';
import './style.css';
import { App } from './App';
import { createFigureState } from './state';

mountFigure(loadModule('inference'), (core) => <App state={createFigureState(core)} />);
