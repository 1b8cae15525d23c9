// A figure framed by another site names where it comes from: a small "from <site title> ↗" link to
// the post that embeds it (a new tab, since the reader is on someone else's page). The site's title
// and which post embeds each figure come from /visualizations/embeds.json, which Hugo writes from
// the posts' viz shortcodes (site/layouts/index.embeds.json); a figure no post embeds links to the
// site's home page.
interface Embeds {
  site: { title: string; url: string };
  figures: Record<string, { post: string; title: string }>;
}

export async function showEmbedSource(root: HTMLElement): Promise<void> {
  const index = new URL('../embeds.json', document.baseURI);
  const name = new URL('.', document.baseURI).pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    const response = await fetch(index, { credentials: 'same-origin' });
    if (!response.ok) return;
    const embeds = (await response.json()) as Embeds;
    const target = embeds.figures[name]?.post ?? embeds.site.url;
    const source = document.createElement('p');
    source.className = 'embed-source';
    const link = document.createElement('a');
    link.href = new URL(target, index).href;
    link.target = '_blank';
    link.rel = 'noopener';
    link.textContent = `from ${embeds.site.title} ↗`;
    if (embeds.figures[name]) link.title = `Read “${embeds.figures[name].title}”, the post this figure belongs to`;
    source.append(link);
    root.before(source);
  } catch {
    // Without the index the figure still works; it only goes unattributed.
  }
}
