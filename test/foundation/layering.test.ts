import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function sourceFiles(directory: string): string[] {
	return readdirSync(join(ROOT, directory)).flatMap((name) => {
		const path = join(directory, name);
		if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
		return path.endsWith(".ts") ? [path] : [];
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
		expect(importsOf("server/http/app.ts")).toContain("express");
		expect(violations("server/http", (target) => target === "express")).not.toEqual([]);
	});

	it("contract/ imports only zod, ts-rest and the OpenAPI metadata extension", () => {
		const allowed = ["zod", "@ts-rest/core", "@asteasolutions/zod-to-openapi"];
		expect(violations("contract", (target) => !target.startsWith("contract") && !allowed.includes(target))).toEqual([]);
	});

	it("domain code never imports transport (express, ts-rest, http/, mcp/)", () => {
		const transport = (target: string) =>
			target === "express" || target.startsWith("@ts-rest/") || target.startsWith("server/http") || target.startsWith("server/mcp");
		for (const directory of ["server/modules", "server/shared", "server/db", "server/providers", "server/knowledge", "server/jobs"]) {
			expect(violations(directory, transport)).toEqual([]);
		}
	});

	it("the SDK never imports the server", () => {
		expect(violations("sdk/src", (target) => target.startsWith("server") || target === "express")).toEqual([]);
	});
});
