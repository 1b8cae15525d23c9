// Core calls too slow for one frame, run in a worker so the page keeps responding: a figure
// computes a large configuration there while the last one stays on screen. The worker gets the
// compiled module the page already has (wasm/load.ts), so nothing is downloaded or compiled twice.
//   offThread('flash', [['flashForwardTrace', input], ...]) -> Promise of the results, in order;
//   a call the core rejects rejects the promise with the core's message.
import { compiledModule, moduleUrl, type ModuleName } from '../../../wasm/load';

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, { resolve: (results: unknown[]) => void; reject: (error: Error) => void }>();

function theWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./coreWorkerScope.ts', import.meta.url), { type: 'module' });
    worker.onmessage = ({ data }: MessageEvent<{ id: number; results?: unknown[]; error?: string }>) => {
      const request = pending.get(data.id);
      pending.delete(data.id);
      if (data.error !== undefined) request?.reject(new Error(data.error));
      else request?.resolve(data.results!);
    };
  }
  return worker;
}

export async function offThread(name: ModuleName, calls: [string, unknown][]): Promise<unknown[]> {
  const wasm = await compiledModule(moduleUrl(name, 'wasm'));
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    theWorker().postMessage({ id, script: moduleUrl(name, 'js'), wasm, calls });
  });
}
