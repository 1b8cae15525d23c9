// Tables and display equations wider than the text column scroll sideways inside themselves
// (post.css). A keyboard can scroll only what takes focus, and not every browser lets a scroller
// take focus by itself (Safari does not), so each one that overflows gets tabindex="0", and loses
// it again once it fits: a table that fits is not worth a stop on the Tab key.
const fits = (el) => el.scrollWidth <= el.clientWidth + 1;
const observer = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (fits(target)) target.removeAttribute('tabindex');
    else target.tabIndex = 0;
  }
});
for (const el of document.querySelectorAll('.prose table, .math-display')) observer.observe(el);
