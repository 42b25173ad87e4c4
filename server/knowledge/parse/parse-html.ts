import { decodeText } from "./decode-text";
import type { ParsedDocument, TextBlock } from "./parsed-document";

const NAMED_ENTITIES: Record<string, string> = {
	amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…",
	rsquo: "’", lsquo: "‘", ldquo: "“", rdquo: "”", copy: "©", reg: "®", trade: "™", eacute: "é", egrave: "è",
	agrave: "à", ccedil: "ç", uuml: "ü", ouml: "ö", auml: "ä", szlig: "ß", euro: "€", middot: "·", bull: "•",
};

export function decodeEntities(text: string): string {
	return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (match, name: string) => {
		if (name[0] === "#") {
			const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
			return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
		}
		return NAMED_ENTITIES[name.toLowerCase()] ?? match;
	});
}

const BLOCK_TAGS: ReadonlySet<string> = new Set([
	"p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "li", "ul", "ol", "table", "tr",
	"blockquote", "pre", "br", "hr", "dd", "dt", "dl", "figure", "figcaption", "form", "h1", "h2", "h3", "h4", "h5", "h6", "title", "body",
]);

/**
 * HTML to text blocks without a DOM: script, style and other non-content elements are dropped with
 * their contents, block elements end paragraphs, h1-h6 build the heading path. Also used for DOCX
 * (mammoth renders it as HTML).
 */
export function parseHtmlText(html: string): ParsedDocument {
	const body = html
		.replace(/<!--[\s\S]*?-->/g, " ")
		.replace(/<(script|style|noscript|template|svg|head|iframe|object)\b[\s\S]*?<\/\1\s*>/gi, " ")
		.replace(/<!doctype[^>]*>/gi, " ");
	const blocks: TextBlock[] = [];
	const path: { level: number; title: string }[] = [];
	let buffer = "";
	let heading: { level: number; text: string } | null = null;
	const flush = () => {
		const text = decodeEntities(buffer).replace(/[ \t\f\v\u00a0]+/g, " ").replace(/\s*\n\s*/g, "\n").trim();
		buffer = "";
		if (!text) return;
		const headingPath = path.map((entry) => entry.title);
		blocks.push(headingPath.length ? { text, headingPath } : { text });
	};
	const tagPattern = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>/g;
	let last = 0;
	for (let match = tagPattern.exec(body); match; match = tagPattern.exec(body)) {
		const text = body.slice(last, match.index).replace(/\s+/g, " ");
		if (heading) heading.text += text;
		else buffer += text;
		last = match.index + match[0].length;
		const closing = match[1] === "/";
		const tag = match[2].toLowerCase();
		const headingLevel = /^h([1-6])$/.exec(tag);
		if (headingLevel && !closing) {
			flush();
			heading = { level: Number(headingLevel[1]), text: "" };
		} else if (headingLevel && closing && heading) {
			const title = decodeEntities(heading.text).replace(/\s+/g, " ").trim();
			const level = heading.level;
			heading = null;
			if (title) {
				while (path.length && path[path.length - 1].level >= level) path.pop();
				path.push({ level, title });
				buffer = `${title}\n`;
			}
		} else if (BLOCK_TAGS.has(tag)) {
			if (tag === "br" || tag === "li" || tag === "tr") buffer += "\n";
			else if (!heading) flush();
		} else if (tag === "td" || tag === "th") {
			if (heading) heading.text += " ";
			else buffer += " | ";
		}
	}
	buffer += body.slice(last).replace(/<[^>]*$/, "");
	flush();
	return { blocks };
}

export function parseHtml(bytes: Uint8Array): ParsedDocument {
	return parseHtmlText(decodeText(bytes));
}
