// The slice of the DOM this folder uses, typed structurally: the project compiles without the DOM lib, and
// linkedom, Readability and turndown all accept these objects at run time.

/** A DOM node as linkedom provides it. */
export interface DomNode {
  nodeName: string;
  nodeType: number;
  textContent: string | null;
  parentNode: DomNode | null;
  childNodes: ArrayLike<DomNode>;
}

/** A DOM element as linkedom provides it. */
export interface DomElement extends DomNode {
  tagName: string;
  innerHTML: string;
  outerHTML: string;
  parentElement: DomElement | null;
  children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  hasAttribute(name: string): boolean;
  removeAttribute(name: string): void;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement> & Iterable<DomElement>;
  closest(selector: string): DomElement | null;
  remove(): void;
  cloneNode(deep?: boolean): DomElement;
}

/** A DOM document as linkedom provides it. */
export interface DomDocument extends DomNode {
  title: string;
  body: DomElement | null;
  documentElement: DomElement | null;
  head: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement> & Iterable<DomElement>;
  createElement(tag: string): DomElement;
  cloneNode(deep?: boolean): DomDocument;
}
