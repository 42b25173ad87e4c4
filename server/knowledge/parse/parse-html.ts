import { decodeText } from "./decode-text";
import { type ParsedDocument, type TextBlock, headingTitle } from "./parsed-document";

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

/** Elements dropped with their contents. */
const DROPPED_ELEMENTS: ReadonlySet<string> = new Set(["script", "style", "noscript", "template", "svg", "head", "iframe", "object"]);
/** Raw-text elements: unclosed, they run to the end of the file (as in a browser). The others then close themselves. */
const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(["script", "style", "noscript", "iframe"]);

function isTagNameCode(code: number, first: boolean): boolean {
	return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (!first && code >= 0x30 && code <= 0x39);
}

/**
 * Where `</name` followed by optional whitespace and `>` starts, at or after `from`, any case; -1 if
 * nowhere. Each call scans forward once.
 */
function findClosingTag(html: string, name: string, from: number): number {
	const pattern = new RegExp(`</${name}\\s*>`, "gi");
	pattern.lastIndex = from;
	return pattern.exec(html)?.index ?? -1;
}

/** Whitespace runs that hold a newline become one newline; lines are trimmed (one pass, no backtracking). */
function collapseAroundNewlines(text: string): string {
	return text
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line.length > 0)
		.join("\n");
}

/**
 * HTML to text blocks without a DOM: script, style and other non-content elements are dropped with
 * their contents, block elements end paragraphs, h1-h6 build the heading path. Also used for DOCX
 * (mammoth renders it as HTML). A single forward scan with indexOf: every search resumes where the
 * previous one ended, and a search that finds nothing ends the scan, so hostile input (thousands of
 * unclosed `<!--`, `<script` or `<a `) costs linear time.
 */
export function parseHtmlText(html: string): ParsedDocument {
	const blocks: TextBlock[] = [];
	const path: { level: number; title: string }[] = [];
	let buffer = "";
	let heading: { level: number; text: string } | null = null;
	// Elements whose closing tag is known to be absent after some point: never searched for again.
	const unclosed = new Set<string>();
	const flush = () => {
		const text = collapseAroundNewlines(decodeEntities(buffer).replace(/[ \t\f\v\u00a0]+/g, " "));
		buffer = "";
		if (!text) return;
		const headingPath = path.map((entry) => entry.title);
		blocks.push(headingPath.length ? { text, headingPath } : { text });
	};
	const addText = (text: string) => {
		const collapsed = text.replace(/\s+/g, " ");
		if (heading) heading.text += collapsed;
		else buffer += collapsed;
	};
	const handleTag = (tag: string, closing: boolean) => {
		const headingLevel = tag.length === 2 && tag[0] === "h" && tag[1] >= "1" && tag[1] <= "6" ? Number(tag[1]) : 0;
		if (headingLevel && !closing) {
			flush();
			heading = { level: headingLevel, text: "" };
		} else if (headingLevel && closing && heading) {
			const title = decodeEntities(heading.text).replace(/\s+/g, " ").trim();
			const level = heading.level;
			heading = null;
			if (title) {
				while (path.length && path[path.length - 1].level >= level) path.pop();
				path.push({ level, title: headingTitle(title) });
				buffer = `${title}\n`;
			}
		} else if (BLOCK_TAGS.has(tag)) {
			if (tag === "br" || tag === "li" || tag === "tr") buffer += "\n";
			else if (!heading) flush();
		} else if (tag === "td" || tag === "th") {
			if (heading) heading.text += " ";
			else buffer += " | ";
		}
	};
	let position = 0;
	while (position < html.length) {
		const open = html.indexOf("<", position);
		if (open < 0) {
			addText(html.slice(position));
			break;
		}
		addText(html.slice(position, open));
		if (html.startsWith("<!--", open)) {
			// An unclosed comment runs to the end of the file.
			const end = html.indexOf("-->", open + 4);
			if (end < 0) break;
			addText(" ");
			position = end + 3;
			continue;
		}
		const next = html.charCodeAt(open + 1);
		if (next === 0x21 || next === 0x3f) {
			// <!doctype …>, <![CDATA[…]]>, <?xml …?>: declarations, not text.
			const end = html.indexOf(">", open + 2);
			if (end < 0) break;
			addText(" ");
			position = end + 1;
			continue;
		}
		const closing = next === 0x2f;
		const nameStart = open + (closing ? 2 : 1);
		let nameEnd = nameStart;
		while (nameEnd < html.length && isTagNameCode(html.charCodeAt(nameEnd), nameEnd === nameStart)) nameEnd++;
		const after = html.charCodeAt(nameEnd);
		if (nameEnd === nameStart || after === 0x5f) {
			// "a < b", "<3", "<a_b>": text, as the tag pattern never matched them.
			addText("<");
			position = open + 1;
			continue;
		}
		const end = html.indexOf(">", nameEnd);
		// An unclosed tag at the end is dropped with everything after it.
		if (end < 0) break;
		const tag = html.slice(nameStart, nameEnd).toLowerCase();
		position = end + 1;
		if (!closing && DROPPED_ELEMENTS.has(tag) && html.charCodeAt(end - 1) !== 0x2f) {
			const close = unclosed.has(tag) ? -1 : findClosingTag(html, tag, position);
			if (close >= 0) {
				addText(" ");
				position = html.indexOf(">", close) + 1;
				continue;
			}
			unclosed.add(tag);
			if (RAW_TEXT_ELEMENTS.has(tag)) break;
			// An unclosed <head>, <svg>…: the browser closes it itself; its text stays.
		}
		handleTag(tag, closing);
	}
	// A heading never closed is text all the same.
	if (heading) buffer += (heading as { text: string }).text;
	flush();
	return { blocks };
}

export function parseHtml(bytes: Uint8Array): ParsedDocument {
	return parseHtmlText(decodeText(bytes));
}
