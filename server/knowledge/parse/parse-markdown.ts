import { decodeText } from "./decode-text";
import { type ParsedDocument, type TextBlock, paragraphs } from "./parsed-document";

/**
 * .md/.markdown: text as is, split into sections at ATX headings (`#`..`######`) so each block
 * knows its heading path. Headings inside fenced code blocks are code, not structure.
 */
export function parseMarkdown(bytes: Uint8Array): ParsedDocument {
	const lines = decodeText(bytes).split("\n");
	const blocks: TextBlock[] = [];
	const path: { level: number; title: string }[] = [];
	let buffer: string[] = [];
	let inFence = false;
	const flush = () => {
		const headingPath = path.map((entry) => entry.title);
		blocks.push(...paragraphs(buffer.join("\n"), headingPath.length ? { headingPath } : {}));
		buffer = [];
	};
	for (const line of lines) {
		if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
		const heading = inFence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
		if (!heading) {
			buffer.push(line);
			continue;
		}
		flush();
		const level = heading[1].length;
		while (path.length && path[path.length - 1].level >= level) path.pop();
		path.push({ level, title: heading[2] });
		// The heading's own text is searchable too; it opens its section.
		buffer.push(heading[2]);
	}
	flush();
	return { blocks };
}
