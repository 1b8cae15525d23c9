// The figures' own number formats (site/viz/shared/format.ts), loaded from that file: a test
// compares a page's text with the core's value printed the same way, without a copy of the rules.
// The file has no imports, so stripping its types (with the build's own transformer) makes a module
// Node can load.
import { readFileSync } from 'node:fs';
import { transformWithOxc } from 'vite';

const file = new URL('../../site/viz/shared/format.ts', import.meta.url);
const { code } = await transformWithOxc(readFileSync(file, 'utf8'), file.pathname);

export const { fmt, fmtBytes, fmtSeconds } = await import(`data:text/javascript,${encodeURIComponent(code)}`);
