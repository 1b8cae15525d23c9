// Full-screen button for the viz shortcode's figures.
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
