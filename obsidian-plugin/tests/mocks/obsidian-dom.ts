/**
 * The DOM helpers Obsidian adds to every element (createEl, createDiv, createSvg,
 * empty, setText, addClass...), for tests under happy-dom and for the screenshot page.
 */

type Info = {
	cls?: string | string[];
	text?: string;
	attr?: Record<string, string | number | boolean | null>;
	parent?: Node;
	prepend?: boolean;
	title?: string;
	href?: string;
};

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el: Element, info: Info | string | undefined): void {
	const o: Info = typeof info === "string" ? { cls: info } : (info ?? {});
	if (o.cls) el.classList.add(...(Array.isArray(o.cls) ? o.cls : o.cls.split(" ")).filter(Boolean));
	if (o.text !== undefined) el.textContent = o.text;
	if (o.title !== undefined) el.setAttribute("title", o.title);
	if (o.href !== undefined) el.setAttribute("href", o.href);
	for (const [k, v] of Object.entries(o.attr ?? {})) {
		if (v !== null && v !== false) el.setAttribute(k, String(v));
	}
}

export function installObsidianDom(doc: Document): void {
	const proto = doc.defaultView!.Node.prototype as unknown as Record<string, unknown>;
	if (proto.createEl) return;
	function createEl(this: Node, tag: string, info?: Info | string, cb?: (el: Element) => void) {
		const el = doc.createElement(tag);
		apply(el, info);
		this.appendChild(el);
		cb?.(el);
		return el;
	}
	function createSvg(this: Node, tag: string, info?: Info | string, cb?: (el: Element) => void) {
		const el = doc.createElementNS(SVG_NS, tag);
		apply(el, info);
		this.appendChild(el);
		cb?.(el);
		return el;
	}
	Object.assign(proto, {
		createEl,
		createSvg,
		createDiv(this: Node, info?: Info | string, cb?: (el: Element) => void) {
			return createEl.call(this, "div", info, cb);
		},
		createSpan(this: Node, info?: Info | string, cb?: (el: Element) => void) {
			return createEl.call(this, "span", info, cb);
		},
		empty(this: Node) {
			while (this.firstChild) this.removeChild(this.firstChild);
		},
		setText(this: Node, text: string) {
			this.textContent = text;
		},
		getText(this: Node) {
			return this.textContent ?? "";
		},
	});
	const elProto = doc.defaultView!.Element.prototype as unknown as Record<string, unknown>;
	Object.assign(elProto, {
		addClass(this: Element, ...c: string[]) {
			this.classList.add(...c);
		},
		removeClass(this: Element, ...c: string[]) {
			this.classList.remove(...c);
		},
		toggleClass(this: Element, c: string, on: boolean) {
			this.classList.toggle(c, on);
		},
		hasClass(this: Element, c: string) {
			return this.classList.contains(c);
		},
		setAttr(this: Element, k: string, v: string | number | boolean | null) {
			if (v === null) this.removeAttribute(k);
			else this.setAttribute(k, String(v));
		},
	});
	const g = doc.defaultView as unknown as Record<string, unknown>;
	g.createDiv = (info?: Info | string) => {
		const el = doc.createElement("div");
		apply(el, info);
		return el;
	};
}
