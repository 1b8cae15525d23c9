// Reading a built post (public/ or SITE_DIR) as its tests need it: the page's HTML, the text a reader
// sees, one generated table's figure, the running prose, and whether an internal link resolves.
// Shared by the posts' site tests (flash-attention-post, inference-post).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const siteDir = resolve(repoRoot, process.env.SITE_DIR ?? 'public');

// Entities and tags out, whitespace collapsed: the text a reader sees (minified HTML drops quotes).
export function textOf(fragment) {
  return fragment
    .replace(/<(script|style|annotation)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
    .replace(/&#39;|&rsquo;|&lsquo;/g, "'").replace(/&ldquo;|&rdquo;/g, '"').replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

// The built page of the post at `path` ('/posts/<slug>/'), with readers of its parts.
export function loadPost(path) {
  const file = join(siteDir, path, 'index.html');
  const html = existsSync(file) ? readFileSync(file, 'utf8') : '';

  // The figure element of one generated table (the data-table shortcode writes data-table="<name>").
  const tableFigure = (name) => {
    const match = html.match(new RegExp(`<figure[^>]*data-table="?${name}"?[^>]*>([\\s\\S]*?)</figure>`));
    return match ? match[1] : null;
  };
  // Running text: the post's body up to its references, without figures (tables, frames, diagrams).
  const prose = () => textOf((html.match(/<div class="?prose"?>([\s\S]*)<section class="?references/) ?? ['', html])[1]
    .replace(/<figure\b[\s\S]*?<\/figure>/g, ' '));
  // Text outside KaTeX, code and scripts, where TeX must not appear.
  const visibleText = () => textOf(html.replace(/<span class="?katex"?>[\s\S]*?<\/annotation>/g, ' ').replace(/<(pre|code)\b[^>]*>[\s\S]*?<\/\1>/gi, ' '));

  // Internal links: site paths must be files of the built site, #fragments ids of the target page.
  const internalLinks = () => [...html.matchAll(/<(?:a|iframe)\b[^>]*?\s(?:href|src)="?([^"\s>]+)/g)].map((m) => m[1])
    .filter((url) => !/^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(url) && !url.startsWith('mailto:'));
  const resolves = (url) => {
    const [target, fragment] = url.split('#');
    let page = html;
    if (target) {
      const absolute = target.startsWith('/') ? target : new URL(target, `http://x${path}`).pathname;
      const linked = join(siteDir, absolute.endsWith('/') ? `${absolute}index.html` : absolute);
      if (!existsSync(linked)) return false;
      page = linked.endsWith('.html') ? readFileSync(linked, 'utf8') : '';
    }
    // A figure's deep link #fig-<name>:<state> targets the element fig-<name>.
    const id = fragment?.startsWith('fig-') ? fragment.split(':')[0] : fragment;
    return !id || new RegExp(`id="?${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?[\\s>]`).test(page);
  };

  return { file, html, tableFigure, prose, visibleText, internalLinks, resolves };
}

// A generated table's figure holds its caption, every row's header, the last cell and a source line.
export function tableProblems(figure, table) {
  if (!figure) return ['not in the post'];
  const body = textOf(figure);
  const problems = [];
  if (!body.includes(textOf(table.caption))) problems.push('caption missing');
  for (const row of table.rows) if (!body.includes(textOf(row[0]))) problems.push(`row "${row[0]}" missing`);
  const lastCell = table.rows.at(-1).at(-1);
  if (lastCell && !body.includes(textOf(lastCell))) problems.push(`cell "${lastCell}" missing`);
  const source = figure.match(/<p class="?data-table__source"?>([\s\S]*?)<\/p>/);
  if (!(source && textOf(source[1]).trim().length > 'Source:'.length + 10)) problems.push('no source line');
  return problems;
}
