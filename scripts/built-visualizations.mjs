// The names of the built visualizations: the folders of static/visualizations/ with an index.html.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR = new URL('../static/visualizations/', import.meta.url).pathname;

export const builtVisualizations = () => readdirSync(DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(DIR, d.name, 'index.html')))
  .map((d) => d.name)
  .sort();
