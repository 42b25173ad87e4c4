import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function sourceFiles(directory: string): string[] {
	return readdirSync(join(ROOT, directory)).flatMap((name) => {
		const path = join(directory, name);
		if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
		return path.endsWith(".ts") || path.endsWith(".tsx") ? [path] : [];
	});
}

function importsOf(file: string): string[] {
	const text = readFileSync(join(ROOT, file), "utf8");
	return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map(
		(match) => match[1] ?? match[2],
	);
}

/** Where an import lands, as a path from the repository root (packages stay bare). */
function resolveImport(file: string, specifier: string): string {
	if (!specifier.startsWith(".")) return specifier;
	return relative(ROOT, join(ROOT, file, "..", specifier));
}

function violations(directory: string, forbidden: (target: string) => boolean): string[] {
	return sourceFiles(directory).flatMap((file) =>
		importsOf(file)
			.map((specifier) => resolveImport(file, specifier))
			.filter(forbidden)
			.map((target) => `${file} -> ${target}`),
	);
}

describe("layering (dependencies point down)", () => {
	it("the import scanner sees real imports (so an empty result means something)", () => {
		expect(importsOf("server/http/pipeline.ts")).toContain("@ts-rest/core");
		expect(violations("server/http", (target) => target.startsWith("@ts-rest/"))).not.toEqual([]);
	});

	it("contract/ imports only zod, ts-rest and the OpenAPI metadata extension", () => {
		const allowed = ["zod", "@ts-rest/core", "@asteasolutions/zod-to-openapi"];
		expect(violations("contract", (target) => !target.startsWith("contract") && !allowed.includes(target))).toEqual([]);
	});

	it("domain code never imports transport (express, ts-rest, http/, mcp/, oauth/, the composition root)", () => {
		const transport = (target: string) =>
			target === "express" ||
			target.startsWith("@ts-rest/") ||
			target.startsWith("@modelcontextprotocol/") ||
			target === "oidc-provider" ||
			["server/http", "server/mcp", "server/oauth", "server/platform", "server/main", "server/worker"].some((layer) => target === layer || target.startsWith(`${layer}/`));
		for (const directory of ["server/modules", "server/shared", "server/db", "server/providers", "server/knowledge", "server/jobs"]) {
			expect(violations(directory, transport)).toEqual([]);
		}
	});

	it("knowledge's mechanisms (server/knowledge) never import the use cases (server/modules)", () => {
		expect(violations("server/knowledge", (target) => target.startsWith("server/modules"))).toEqual([]);
	});

	it("the dashboard (web/) talks to the server only through the management contract", () => {
		expect(violations("web/src", (target) => target.startsWith("server") || target.startsWith("sdk") || target === "express")).toEqual([]);
		expect(violations("web/src", (target) => target.startsWith("contract") && !target.startsWith("contract/management"))).toEqual([]);
	});

	it("one route table: nothing in the server dispatches requests beside router.ts (no Express app, no second matcher)", () => {
		expect(violations("server", (target) => target === "express")).toEqual([]);
	});

	it("the SDK never imports the server", () => {
		expect(violations("sdk/src", (target) => target.startsWith("server") || target === "express")).toEqual([]);
	});
});

/**
 * Top-level declarations that hold state: `let`/`var`, and `new` of anything but an entity schema
 * or a read-only Set/Map. Two platforms in one process (tests, or an embedder of this server) must
 * not share a cache, a pool or a setting through module state: every such thing is a service built
 * by server/platform.ts.
 */
function moduleState(file: string): string[] {
	const found: string[] = [];
	for (const [index, line] of readFileSync(join(ROOT, file), "utf8").split("\n").entries()) {
		const declaration = /^(?:export )?(let|var|const) (\w+)(?::\s*([^=]+?))?\s*=\s*(.*)$/.exec(line);
		if (!declaration) continue;
		const [, keyword, name, type = "", value] = declaration;
		const constructed = /^new (\w+)/.exec(value)?.[1];
		const readOnlyCollection = (constructed === "Set" || constructed === "Map") && /^Readonly(Set|Map)</.test(type.trim());
		if (keyword !== "const" || (constructed && constructed !== "EntitySchema" && !readOnlyCollection)) found.push(`${file}:${index + 1} ${name}`);
	}
	return found;
}

/** The one exception, and why: a pool of random bytes is process-wide like the CSPRNG behind it; nothing two platforms could disagree on. */
const ALLOWED_MODULE_STATE = ["server/shared/ids.ts:12 poolOffset"];

describe("no module-level state in server/", () => {
	it("the scanner finds state where there is some", () => {
		expect(moduleState("server/shared/ids.ts")).toEqual(ALLOWED_MODULE_STATE);
	});

	it("every stateful thing is a service of the composition root", () => {
		expect(sourceFiles("server").flatMap(moduleState)).toEqual(ALLOWED_MODULE_STATE);
	});
});

/** The only file that may write `knowledge_documents`: a document's status, attempts and queue turn change in one place. */
const DOCUMENT_LIFECYCLE = "server/modules/knowledge/document-lifecycle.ts";

/** Writes of `knowledge_documents` in a file: SQL, ORM calls on its schema, and changes to a loaded document's fields (flushed later). */
function knowledgeDocumentWrites(file: string): string[] {
	const text = readFileSync(join(ROOT, file), "utf8");
	const holdsDocuments = /\b(KnowledgeDocumentSchema|findKnowledgeDocument)\b/.test(text);
	const found: string[] = [];
	for (const [index, line] of text.split("\n").entries()) {
		const sql = /\b(update|insert\s+into|delete\s+from)\s+"?knowledge_documents\b/i.test(line);
		const orm = /\b(create|nativeUpdate|nativeDelete|upsert|upsertMany|insert|insertMany|persist|assign)\(\s*KnowledgeDocumentSchema\b/.test(line);
		const field =
			holdsDocuments && /\.(status|attempts|failureReason|uploadedAt|processingStartedAt|processedAt|chunkCount|unfinishedParses|ingestionSlot|byteSize|storageKey)\s*(\+\+|--|[+-]?=(?!=))/.test(line);
		if (sql || orm || field) found.push(`${file}:${index + 1}`);
	}
	return found;
}

describe("one writer for a knowledge document's life", () => {
	it("the scanner finds the lifecycle's own writes (so an empty result means something)", () => {
		expect(knowledgeDocumentWrites(DOCUMENT_LIFECYCLE).length).toBeGreaterThan(8);
	});

	it("nothing in server/ but the document lifecycle writes knowledge_documents", () => {
		expect(
			sourceFiles("server")
				.filter((file) => file !== DOCUMENT_LIFECYCLE)
				.flatMap(knowledgeDocumentWrites),
		).toEqual([]);
	});
});
