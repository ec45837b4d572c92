// Native tooltips (title attributes) close on a click: WebKitGTK keeps a
// tooltip up after the element under it is clicked, over what the click
// showed. The title is put aside on pointerdown and back when the pointer
// leaves the element.

/** Starts the behaviour on a document; returns a function that ends it. */
export function startTooltips(doc: Document = document): () => void {
  const down = (e: Event) => {
    const el = (e.target as Element | null)?.closest?.('[title]') as HTMLElement | null;
    if (!el || !el.title) return;
    el.dataset.tipAside = el.title;
    el.removeAttribute('title');
    const back = () => {
      if (el.dataset.tipAside !== undefined && !el.hasAttribute('title')) el.setAttribute('title', el.dataset.tipAside);
      delete el.dataset.tipAside;
      el.removeEventListener('pointerleave', back);
    };
    el.addEventListener('pointerleave', back);
  };
  doc.addEventListener('pointerdown', down, true);
  return () => doc.removeEventListener('pointerdown', down, true);
}
