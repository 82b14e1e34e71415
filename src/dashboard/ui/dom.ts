// A tiny element builder: the dashboard is a handful of panels, not worth a framework.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

export const format = {
  count: (value: number) => integer.format(value),
  decimal: (value: number) => decimal.format(value),
  percent: (value: number) => `${decimal.format(value)}%`,
  seconds(value: number): string {
    if (value < 60) return `${decimal.format(value)} s`;
    const minutes = Math.floor(value / 60);
    return `${minutes} min ${Math.round(value - minutes * 60)} s`;
  },
};
