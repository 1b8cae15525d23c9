// Tables and display equations wider than the text column scroll sideways inside themselves
// (post.css). A keyboard can scroll only what takes focus, and not every browser lets a scroller
// take focus by itself (Safari does not), so each one that overflows gets tabindex="0", and loses
// it again once it fits: a table that fits is not worth a stop on the Tab key.
const regions = document.querySelectorAll('.prose table, .math-display');
const update = (el) => {
  if (el.scrollWidth <= el.clientWidth + 1) el.removeAttribute('tabindex');
  else el.tabIndex = 0;
};
const observer = new ResizeObserver((entries) => entries.forEach(({ target }) => update(target)));
regions.forEach((el) => observer.observe(el));
// KaTeX's web fonts can widen a formula without resizing its box: check again once they are in.
document.fonts.ready.then(() => regions.forEach(update));
