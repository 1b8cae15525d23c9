// One Vite project, one HTML entry per visualization. Output goes to static/visualizations/
// (committed), with code shared between visualizations split into common chunks so a reader's
// browser caches Preact, the controls and the theme once for the whole series.
import { readdirSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { formulaPrerender } from './formula-prerender.ts';

const root = import.meta.dirname;
// VIZ_ONLY=a,b builds only those visualizations (for working on one figure; `make viz` builds all).
const only = process.env.VIZ_ONLY?.split(',');
const entries = Object.fromEntries(
  readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(resolve(root, d.name, 'index.html')))
    .filter((d) => !only || only.includes(d.name))
    .map((d) => [d.name, resolve(root, d.name, 'index.html')]),
);

export default defineConfig({
  root,
  base: './',
  publicDir: false,
  plugins: [formulaPrerender()],
  build: {
    outDir: resolve(root, '../../static/visualizations'),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    rollupOptions: { input: entries },
  },
});
