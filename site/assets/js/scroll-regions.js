// Tables, display equations and code blocks wider than the text column scroll sideways inside themselves
// (post.css). A keyboard can scroll only what takes focus, and not every browser lets a scroller
// take focus by itself (Safari does not), so each one that overflows gets tabindex="0", and loses
// it again once it fits: a table that fits is not worth a stop on the Tab key.
// All widths are read before any tabindex is written: a write between reads would make each read
// lay the page out again (about 0.3 s on a phone for the Part 3 post, at load and again once the
// fonts are in).
const regions = document.querySelectorAll('.prose table, .math-display, .prose pre');
const update = (elements) => {
  const overflows = elements.map((el) => el.scrollWidth > el.clientWidth + 1);
  elements.forEach((el, i) => {
    if (!overflows[i]) el.removeAttribute('tabindex');
    else if (el.tabIndex !== 0) el.tabIndex = 0;
  });
};
const observer = new ResizeObserver((entries) => update(entries.map(({ target }) => target)));
regions.forEach((el) => observer.observe(el));
// KaTeX's web fonts can widen a formula without resizing its box: check again once they are in.
document.fonts.ready.then(() => update([...regions]));
