// The viz shortcode's figures: the full-screen button, and frames sized to their figures.
//
// The button ships `hidden` so readers without JavaScript, or on browsers
// without the Fullscreen API (iPhone Safari only fullscreens <video>), never
// see a control that does nothing; the "New tab" link covers them.
// The whole window (title bar + frame) goes full screen so the exit button
// stays on screen for touch users who have no Esc key.

const request = (element) =>
  (element.requestFullscreen || element.webkitRequestFullscreen).call(element);
const exit = () => (document.exitFullscreen || document.webkitExitFullscreen).call(document);
const currentFullscreen = () => document.fullscreenElement || document.webkitFullscreenElement || null;
const supported = Boolean(document.fullscreenEnabled || document.webkitFullscreenEnabled);

function setUp(button) {
  const frameWindow = button.closest('[data-viz-window]');
  if (!frameWindow) return;
  const enterLabel = button.getAttribute('aria-label');
  const exitLabel = enterLabel.replace(/^Show (.*) full screen$/, 'Leave full screen for $1');
  const text = button.querySelector('.viz__action-text');

  const sync = () => {
    const active = currentFullscreen() === frameWindow;
    button.setAttribute('aria-label', active ? exitLabel : enterLabel);
    button.setAttribute('aria-pressed', String(active));
    if (text) text.textContent = active ? 'Exit full screen' : 'Full screen';
  };

  button.addEventListener('click', () => {
    const action = currentFullscreen() === frameWindow ? exit() : request(frameWindow);
    // Some browsers refuse (e.g. inside a sandboxed frame); the page stays usable.
    if (action && typeof action.catch === 'function') action.catch(() => {});
  });
  document.addEventListener('fullscreenchange', sync);
  document.addEventListener('webkitfullscreenchange', sync);
  button.hidden = false;
  sync();
}

if (supported) document.querySelectorAll('[data-viz-fullscreen]').forEach(setUp);

// Each figure reports its height from inside its frame (site/viz/shared/mount.tsx). The frame takes
// that height, up to the window's (viz.css): a figure taller than the window scrolls inside its
// frame, its player controls pinned at the bottom. Until a figure reports (frames load lazily), its
// frame takes the height the figure was measured to have at the frame's width (the viz shortcode's
// data-viz-heights: [width, height] points, interpolated), so the page does not move when it loads.
const sizeFrame = (frame, height) => {
  frame.style.setProperty('--viz-content-height', `${Math.round(height)}px`);
  frame.classList.add('viz__frame--sized');
};

function measuredHeight(points, width) {
  const i = points.findIndex(([w]) => w >= width);
  if (i <= 0) return points[i === 0 ? 0 : points.length - 1][1];
  const [[w0, h0], [w1, h1]] = [points[i - 1], points[i]];
  return h0 + ((h1 - h0) * (width - w0)) / (w1 - w0);
}

// Each waiting frame's measured [width, height] points, parsed once; a frame leaves when its figure reports.
const measured = new Map();
const estimator = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (measured.has(target)) sizeFrame(target, measuredHeight(measured.get(target), target.clientWidth));
  }
});
document.querySelectorAll('.viz__frame[data-viz-heights]').forEach((frame) => {
  measured.set(frame, JSON.parse(frame.dataset.vizHeights));
  estimator.observe(frame);
});

// Only this site's figures are listened to.
window.addEventListener('message', (event) => {
  if (event.origin !== location.origin || event.data?.type !== 'viz:height') return;
  const height = Number(event.data.height);
  if (!(height > 0 && height < 20000)) return;
  const iframe = [...document.querySelectorAll('.viz__frame iframe')].find((f) => f.contentWindow === event.source);
  if (!iframe) return;
  measured.delete(iframe.parentElement);
  estimator.unobserve(iframe.parentElement);
  sizeFrame(iframe.parentElement, height);
});

// Figure state travels. Each figure keeps its state in its own URL hash and reports every change as
// { type: 'viz:state', hash } (site/viz/shared/hashState.ts). The "New tab" link takes that state,
// so the figure opens there as the reader left it (full screen shows the same frame, so it keeps it
// anyway). While the reader is working a figure, the post's URL becomes #fig-<name>:<state>, so
// copying it shares the post scrolled to that figure in that state; such a URL, opened or changed
// later, moves the figure to that state and scrolls to it.
const POST_HASH = /^#fig-([a-z0-9-]+)(?::(.*))?$/;
const figureParts = (figure) => {
  const iframe = figure.querySelector('.viz__frame iframe');
  return { iframe, newTab: figure.querySelector('[data-viz-newtab]'), page: iframe.getAttribute('src').split('#')[0] };
};

function showState(figure, state) {
  const { iframe, newTab, page } = figureParts(figure);
  const src = state ? `${page}#${state}` : page;
  if (iframe.getAttribute('src') !== src) iframe.setAttribute('src', src);
  if (newTab) newTab.setAttribute('href', src);
}

// The text above a figure is laid out only as it nears the screen (post.css, content-visibility),
// and frames take their figures' heights as they load, so the page above a figure grows after the
// first scroll to it. Until the reader scrolls or 3 s have passed, the figure is scrolled back to
// the top of the window whenever the page's height changes.
function pinToTop(figure) {
  const align = () => figure.scrollIntoView({ block: 'start', behavior: 'instant' });
  const pin = new ResizeObserver(align);
  const release = () => {
    pin.disconnect();
    for (const type of ['wheel', 'touchstart', 'keydown', 'pointerdown']) window.removeEventListener(type, release, true);
  };
  for (const type of ['wheel', 'touchstart', 'keydown', 'pointerdown']) window.addEventListener(type, release, true);
  pin.observe(document.body);
  setTimeout(release, 3000);
  align();
}

function followPostHash() {
  const match = POST_HASH.exec(location.hash);
  const figure = match && document.getElementById(`fig-${match[1]}`);
  if (!figure) return;
  if (match[2] !== undefined) showState(figure, match[2]);
  pinToTop(figure);
}
followPostHash();
window.addEventListener('hashchange', followPostHash);

window.addEventListener('message', (event) => {
  if (event.origin !== location.origin || event.data?.type !== 'viz:state' || typeof event.data.hash !== 'string') return;
  const iframe = [...document.querySelectorAll('.viz__frame iframe')].find((f) => f.contentWindow === event.source);
  const figure = iframe?.closest('figure[data-viz-name]');
  if (!figure) return;
  const { newTab, page } = figureParts(figure);
  if (newTab) newTab.setAttribute('href', `${page}#${event.data.hash}`);
  // Only the figure the reader is working (focus is inside its frame) writes the post's URL: the
  // state every figure reports as it opens is not the reader's.
  if (document.activeElement === iframe) history.replaceState(null, '', `#fig-${figure.dataset.vizName}:${event.data.hash}`);
});

// A link to a figure (the "Skip to the first figure" link) puts keyboard focus inside it, where the
// figure's shortcuts work (Space, ←/→, Home/End; site/viz/shared/PlayControls.tsx).
document.addEventListener('click', (event) => {
  const link = event.target.closest?.('a[href^="#fig-"]');
  const figure = link && document.getElementById(link.getAttribute('href').slice(1).split(':')[0]);
  if (figure) requestAnimationFrame(() => figureParts(figure).iframe.focus());
});
