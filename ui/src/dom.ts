// Building the page's elements (docs/ui.md "Escaping"): text is only ever set
// as text nodes, so a tool name or description from an upstream cannot become
// markup, and no inline style or script is ever produced (the CSP forbids both).

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null | ((event: Event) => void)>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'class') node.className = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Pretty JSON as text (never markup). */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}

export function copyButton(label: string, text: () => string): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'copy' }, label);
  button.addEventListener('click', () => {
    void navigator.clipboard?.writeText(text()).then(
      () => flash(button, 'Copied'),
      () => flash(button, 'Copy failed'),
    );
  });
  return button;
}

function flash(button: HTMLButtonElement, text: string): void {
  const before = button.textContent;
  button.textContent = text;
  setTimeout(() => (button.textContent = before), 1200);
}
