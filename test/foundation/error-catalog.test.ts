import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_STATUS, ERROR_STATUSES } from "../../contract/errors";
import { ERROR_CODES as SDK_ERROR_CODES } from "../../sdk/src/error-codes";
import { ProviderError } from "../../server/providers/provider-error";
import { providerErrorFromStatus } from "../../server/providers/upstream-errors";
import { AppError } from "../../server/shared/app-error";

const ROOT = join(import.meta.dirname, "..", "..");

/** The spec's table (Errors): the thirteen codes and the status each is listed under. */
const SPEC_CATALOG: Record<string, number> = {
	VALIDATION_ERROR: 400,
	INVALID_REQUEST: 400,
	PAYLOAD_TOO_LARGE: 413,
	UNAUTHENTICATED: 401,
	INVALID_CREDENTIALS: 401,
	FORBIDDEN: 403,
	RATE_LIMITED: 429,
	COST_QUOTA_EXCEEDED: 429,
	ASSISTANT_NOT_FOUND: 404,
	DEPLOYMENT_NOT_FOUND: 404,
	IDEMPOTENCY_KEY_CONFLICT: 409,
	INTERNAL_ERROR: 500,
	NOT_FOUND: 404,
};

function sourceFiles(directory: string): string[] {
	return readdirSync(join(ROOT, directory)).flatMap((name) => {
		const path = join(directory, name);
		if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
		return path.endsWith(".ts") ? [path] : [];
	});
}

interface CodeSite {
	file: string;
	line: number;
	code: string;
}

/** ProviderError takes a failure kind, not a code: its codes stand in its own `code:` table. */
const ERROR_CONSTRUCTORS = /(^|\.)AppError$/;

/**
 * Every string literal in `text` that stands where an error code goes: the first argument of
 * `new AppError(…)`, a `code:` property of an object (an envelope or a stream error written by
 * hand), or a literal in the type of a `code` property. Whatever the type system is told, a code
 * can only leave the server from one of these.
 */
function findCodeSites(file: string, text: string): CodeSite[] {
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
	const sites: CodeSite[] = [];
	const record = (node: ts.StringLiteralLike) => sites.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, code: node.text });
	const isCodeName = (name: ts.PropertyName | undefined) => name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name)) && name.text === "code";
	const visit = (node: ts.Node) => {
		if (ts.isStringLiteralLike(node)) {
			const parent = node.parent;
			if (ts.isNewExpression(parent) && ERROR_CONSTRUCTORS.test(parent.expression.getText(source)) && parent.arguments?.[0] === node) record(node);
			if (ts.isPropertyAssignment(parent) && parent.initializer === node && isCodeName(parent.name)) record(node);
			if (ts.isLiteralTypeNode(parent)) {
				let type: ts.Node = parent;
				while (ts.isUnionTypeNode(type.parent)) type = type.parent;
				if (ts.isPropertySignature(type.parent) && isCodeName(type.parent.name)) record(node);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return sites;
}

/** Errors of Node and its libraries, read from a caught error's `code`, never sent. */
const FOREIGN_CODES = /^(E[A-Z]+|UND_ERR_[A-Z_]+|HPE_[A-Z_]+|ERR_[A-Z_]+|[0-9A-Z]{5})$/;

describe("the closed error catalog", () => {
	it("lists exactly the spec's thirteen codes, each with the spec's status first", () => {
		expect([...ERROR_CODES].sort()).toEqual(Object.keys(SPEC_CATALOG).sort());
		for (const code of ERROR_CODES) expect(ERROR_STATUS[code], code).toBe(SPEC_CATALOG[code]);
		// Other statuses only where the spec leaves room: Node's own refusals, and failures of what we depend on.
		const extra = ERROR_CODES.flatMap((code) => (ERROR_STATUSES[code] as readonly number[]).slice(1).map((status) => `${code} ${status}`));
		expect(extra.sort()).toEqual(["INTERNAL_ERROR 502", "INTERNAL_ERROR 503", "INTERNAL_ERROR 504", "INVALID_REQUEST 408", "INVALID_REQUEST 431"]);
	});

	it("is the SDK's catalog too", () => {
		expect([...SDK_ERROR_CODES].sort()).toEqual([...ERROR_CODES].sort());
	});

	it("types AppError's code as the catalog and its status as one the code allows", () => {
		// @ts-expect-error: not a catalog code.
		expect(new AppError("PROVIDER_ERROR", "x").code).toBe("PROVIDER_ERROR");
		// @ts-expect-error: 502 is not a status of INVALID_REQUEST.
		expect(new AppError("INVALID_REQUEST", "x", { status: 502 }).status).toBe(502);
		expect(new AppError("INTERNAL_ERROR", "x", { status: 504 }).status).toBe(504);
		expect(new AppError("RATE_LIMITED", "x").status).toBe(429);
	});

	it("the source walk finds codes where they stand, and flags one outside the catalog", () => {
		const sample = [
			'throw new AppError("PROVIDER_ERROR", "x");',
			'const envelope = { code: "SERVICE_UNAVAILABLE", status: 503 };',
			'interface Answer { code: "INVALID_REQUEST" | "TEAPOT" }',
			'const config = { env: "DATABASE_URL" }; if (error.code === "ECONNRESET") {}',
		].join("\n");
		expect(findCodeSites("sample.ts", sample).map((site) => site.code)).toEqual(["PROVIDER_ERROR", "SERVICE_UNAVAILABLE", "INVALID_REQUEST", "TEAPOT"]);
	});

	it("no code outside the catalog is written anywhere in the server", () => {
		const sites = sourceFiles("server").flatMap((file) => findCodeSites(file, readFileSync(join(ROOT, file), "utf8")));
		// The walk sees the server's real error sites, so an empty list of offenders means something.
		expect(sites.length).toBeGreaterThan(40);
		expect(sites).toContainEqual(expect.objectContaining({ file: join("server", "providers", "provider-error.ts"), code: "RATE_LIMITED" }));
		const catalog = new Set<string>(ERROR_CODES);
		const offenders = sites.filter((site) => !catalog.has(site.code) && !FOREIGN_CODES.test(site.code));
		expect(offenders.map((site) => `${site.file}:${site.line} ${site.code}`)).toEqual([]);
	});

	it("maps every provider failure onto catalog codes, with the most useful status", () => {
		const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
		const mapped = (status: number, retryAfter?: string) => {
			const error = providerErrorFromStatus({ providerName: "openai", status, body: { error: { message: "nope" } }, headers: headers(retryAfter ? { "retry-after": retryAfter } : {}), apiKey: "sk-secret" });
			return { code: error.code, status: error.status, retryAfter: error.headers?.["Retry-After"], retryable: error.retryable };
		};
		expect(mapped(429, "7")).toEqual({ code: "RATE_LIMITED", status: 429, retryAfter: "7", retryable: true });
		expect(mapped(429)).toEqual({ code: "RATE_LIMITED", status: 429, retryAfter: "1", retryable: true });
		expect(mapped(401)).toEqual({ code: "INVALID_REQUEST", status: 400, retryAfter: undefined, retryable: false });
		expect(mapped(403)).toEqual({ code: "INVALID_REQUEST", status: 400, retryAfter: undefined, retryable: false });
		expect(mapped(404)).toEqual({ code: "INVALID_REQUEST", status: 400, retryAfter: undefined, retryable: false });
		expect(mapped(408)).toEqual({ code: "INTERNAL_ERROR", status: 504, retryAfter: undefined, retryable: true });
		expect(mapped(500)).toEqual({ code: "INTERNAL_ERROR", status: 502, retryAfter: undefined, retryable: true });
		expect(mapped(503)).toEqual({ code: "INTERNAL_ERROR", status: 502, retryAfter: undefined, retryable: true });
		for (const kind of ["malformed_response", "unavailable", "timeout", "aborted"] as const) {
			const error = new ProviderError(kind, "mistral", "x");
			expect(ERROR_CODES).toContain(error.code);
			expect((ERROR_STATUSES[error.code] as readonly number[]).includes(error.status), `${kind} ${error.status}`).toBe(true);
		}
		expect([new ProviderError("malformed_response", "m", "x").status, new ProviderError("unavailable", "m", "x").status, new ProviderError("timeout", "m", "x").status]).toEqual([502, 503, 504]);
	});
});
