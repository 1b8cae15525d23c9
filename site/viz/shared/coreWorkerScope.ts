// The worker behind offThread.ts: instantiates a part's module from the compiled WebAssembly.Module
// the page already holds (no second download or compile), then runs the core calls it is sent and
// posts their results back. One module instance per worker, made on the first request.
/// <reference lib="webworker" />

interface Request { id: number; script: string; wasm: WebAssembly.Module; calls: [string, unknown][] }
type Core = Record<string, (argument: unknown) => unknown>;
type Factory = (options: object) => Promise<Core>;

let core: Promise<Core> | null = null;

self.onmessage = async ({ data }: MessageEvent<Request>) => {
  const { id, script, wasm, calls } = data;
  try {
    core ??= import(/* @vite-ignore */ script).then((m: { default: Factory }) => m.default({
      instantiateWasm: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => {
        WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm));
        return {};
      },
    }));
    const module = await core;
    self.postMessage({ id, results: calls.map(([name, argument]) => module[name](argument)) });
  } catch (error) {
    self.postMessage({ id, error: (error as Error).message ?? String(error) });
  }
};
