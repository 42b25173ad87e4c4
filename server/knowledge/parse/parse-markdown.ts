import { decodeText } from "./decode-text";
import { type ParsedDocument, type TextBlock, headingTitle, paragraphs } from "./parsed-document";

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
		const content = line.trimStart();
		if (content.startsWith("```") || content.startsWith("~~~")) inFence = !inFence;
		const heading = inFence ? null : atxHeading(line);
		if (!heading) {
			buffer.push(line);
			continue;
		}
		flush();
		while (path.length && path[path.length - 1].level >= heading.level) path.pop();
		path.push({ level: heading.level, title: headingTitle(heading.title) });
		// The heading's own text is searchable too; it opens its section.
		buffer.push(heading.title);
	}
	flush();
	return { blocks };
}

/**
 * `# Title`, `## Title ##`: one to six `#`, whitespace, then the title without a closing run of
 * `#`. By hand: the regular expression this replaces backtracked over a long run of `#` or
 * spaces (worse than quadratic on a 50 KB line of them).
 */
function atxHeading(line: string): { level: number; title: string } | null {
	let level = 0;
	while (level < line.length && line.charCodeAt(level) === 0x23) level++;
	if (level < 1 || level > 6 || level === line.length || line[level].trim() !== "") return null;
	const rest = line.slice(level).trim();
	if (!rest) return null;
	let end = rest.length;
	while (end > 0 && rest.charCodeAt(end - 1) === 0x23) end--;
	const title = rest.slice(0, end).trimEnd();
	// A title made only of `#` keeps them.
	return { level, title: title || rest };
}
