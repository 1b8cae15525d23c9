// A GPU named by a link (#gpu=<id>): a preset the core knows, or else the figure's default GPU and a
// plain sentence saying so, in place of the core's list of preset ids.
import type { AttnFlash } from '../../../wasm/load';

export function gpuFromHash(core: AttnFlash, hash: Record<string, string>, fallback: string): { gpu: string; notice: string | null } {
  const asked = hash.gpu;
  if (asked === undefined) return { gpu: fallback, notice: null };
  const presets = core.gpuPresets();
  if (presets.some((g) => g.id === asked)) return { gpu: asked, notice: null };
  const name = presets.find((g) => g.id === fallback)?.name ?? fallback;
  return {
    gpu: fallback,
    notice: `This link asks for a GPU the figure does not know (“${asked.slice(0, 40)}”), so it shows the ${name}. Choose another GPU from the list.`,
  };
}
