// Writes text into an element. When the element holds a single text node its data is changed in
// place: assigning textContent would replace the node, which the browser handles as a removal and
// an insertion (a new layout object, styled and laid out from scratch) instead of a text change.
export function setText(el: HTMLElement, text: string) {
  const node = el.firstChild;
  if (node instanceof Text && node === el.lastChild) {
    if (node.data !== text) node.data = text;
  } else if (el.textContent !== text) {
    el.textContent = text;
  }
}
