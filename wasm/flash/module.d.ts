// The flash module (static/wasm/attn_flash.{js,wasm}): everything Part 3 and the online-softmax
// primer draw. Hand-written (Emscripten 3.1.6 has no --emit-tsd); tests/wasm/api.test.mjs fails if
// a name bound in wasm/flash/ or wasm/common/ is missing from these declarations.
import type { PresetsApi } from '../common/presets';
import type { ModuleOptions, RandomApi } from '../common/types';
import type { AttentionApi } from './attention';
import type { BreakdownApi } from './breakdown';
import type { CostApi } from './cost';
import type { GpuApi } from './gpu';
import type { IoApi } from './io';

export interface AttnFlash extends RandomApi, PresetsApi, AttentionApi, IoApi, CostApi, GpuApi, BreakdownApi {}

declare function createAttnModule(options?: ModuleOptions): Promise<AttnFlash>;
export default createAttnModule;
