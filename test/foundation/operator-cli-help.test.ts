import { execFile } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type OperatorCliResult, runOperatorCliAsTyped } from "../helpers/operator-cli";

const GROUPS = ["organization", "workspace", "member", "user", "api-key", "provider-credential", "assistant", "environment", "knowledge", "trace", "evaluation", "connection", "signing-key"];

// Help and usage errors never open the database: this address refuses, so any attempt would fail the command.
const UNREACHABLE_DATABASE = "postgres://postgres@127.0.0.1:1/none";
const admin = (...args: string[]) => runOperatorCliAsTyped(UNREACHABLE_DATABASE, args);

function expectPlainText(output: string): void {
	expect(output).toContain("Usage:");
	expect(() => JSON.parse(output)).toThrow();
	expect(output).not.toContain("\\n");
}

/** The lines of one section (`Optional flags:` …) of a help text. */
function section(help: string, title: string): string {
	const start = help.indexOf(`\n${title}\n`);
	if (start === -1) return "";
	const end = help.indexOf("\n\n", start + title.length + 2);
	return help.slice(start, end === -1 ? undefined : end);
}

describe("operator CLI help", { timeout: 60_000 }, () => {
	it("admin help and admin --help list every command group as plain text, exit 0", async () => {
		for (const args of [["help"], ["--help"], ["-h"], ["help", "--json"]]) {
			const result = await admin(...args);
			expect(result.code, args.join(" ")).toBe(0);
			expect(result.stderr).toBe("");
			expectPlainText(result.stdout);
			for (const group of GROUPS) expect(result.stdout).toMatch(new RegExp(`\\n  ${group} +\\S`));
			expect(result.stdout).toMatch(/\n {2}bootstrap +First organization/);
		}
	});

	it("a group's --help lists its commands (nested ones too), not the names kept for compatibility", async () => {
		for (const args of [["assistant", "--help"], ["help", "assistant"]]) {
			const result = await admin(...args);
			expect(result.code).toBe(0);
			expectPlainText(result.stdout);
			for (const command of ["list", "get", "create", "draft get", "draft update", "version list", "version get", "version create", "deployment list", "publish", "execute", "playground"]) {
				expect(result.stdout).toMatch(new RegExp(`\\n  ${command} +\\S`));
			}
			expect(result.stdout).not.toContain("update-draft");
		}
	});

	it("a command's --help shows its usage line and marks optional flags with their defaults", async () => {
		const create = await admin("assistant", "create", "--help");
		expect(create.code).toBe(0);
		expectPlainText(create.stdout);
		expect(create.stdout).toContain("admin assistant create --workspace ID --slug SLUG --name NAME [--description TEXT]");
		expect(section(create.stdout, "Required flags:")).toMatch(/--workspace ID[\s\S]*--slug SLUG[\s\S]*--name NAME/);
		expect(section(create.stdout, "Optional flags:")).toContain("--description TEXT");
		expect(section(create.stdout, "Required flags:")).not.toContain("--description");
		expect(create.stdout).toContain("MCP tool create_assistant");

		const key = (await admin("help", "api-key", "create")).stdout;
		expect(key).toContain("[--name NAME] [--scopes SCOPE,…]");
		expect(section(key, "Optional flags:")).toMatch(/--name NAME +What the key is for \(default: API key\)/);
		expect(section(key, "Optional flags:")).toMatch(/--scopes SCOPE,… .*default: runtime:execute/);

		const run = (await admin("evaluation", "run", "start", "-h")).stdout;
		expect(run).toContain("(--version N | --environment SLUG | --draft)");
		expect(section(run, "Exactly one of:")).toMatch(/--version N[\s\S]*--environment SLUG[\s\S]*--draft/);
		expect(section(run, "Optional flags:")).toMatch(/--concurrency N .*\(default: 4\)/);

		// A name kept for compatibility shows the same command's help, and its current name.
		const old = await admin("assistant", "update-draft", "--help");
		expect(old.code).toBe(0);
		expect(old.stdout).toContain("Now named: admin assistant draft update.");
	});

	it("an unknown command exits 2 with the usage on stderr (JSON with --json)", async () => {
		const unknown = await admin("frobnicate");
		expect(unknown.code).toBe(2);
		expect(unknown.stdout).toBe("");
		expect(unknown.stderr).toMatch(/^error: unknown command 'frobnicate'\n\n/);
		expect(unknown.stderr).toContain("Commands:");

		const typo = await admin("assistant", "lsit");
		expect(typo.code).toBe(2);
		expect(typo.stderr).toContain("unknown command 'lsit' for 'assistant'; did you mean list?");
		expect(typo.stderr).toContain("admin assistant <command> [flags]");

		const json = await admin("assistant", "lsit", "--json");
		expect(json.code).toBe(2);
		const { error } = JSON.parse(json.stderr) as { error: { code: string; message: string; usage: string } };
		expect(error.code).toBe("USAGE");
		expect(error.message).toBe("unknown command 'lsit' for 'assistant'; did you mean list?");
		expect(error.usage).toContain("draft update");
	});

	it("wrong flags exit 2 with the command's usage: unknown, missing, out of choices, one-of broken", async () => {
		const cases: [string[], string][] = [
			[["assistant", "list", "--workspce", "ws_1"], "error: unknown flag --workspce; did you mean --workspace?"],
			[["assistant", "list"], "error: missing required flag: --workspace"],
			[["assistant", "create", "--workspace", "ws_1", "--slug"], "error: --slug needs a value (SLUG)"],
			[["member", "set-role", "--organization", "org_1", "--user", "usr_1", "--role", "emperor"], "error: invalid value for --role: 'emperor' is not one of owner, admin, member, viewer"],
			[["evaluation", "run", "start", "--workspace", "ws_1", "--dataset", "ds_1", "--slug", "bot"], "error: give one of --version, --environment, --draft"],
			[["assistant", "list", "--workspace", "ws_1", "extra"], "error: unexpected argument 'extra'"],
			[["assistant"], "error: 'assistant' needs a command"],
		];
		for (const [args, message] of cases) {
			const result = await admin(...args);
			expect(result.code, args.join(" ")).toBe(2);
			expect(result.stdout).toBe("");
			expect(result.stderr.split("\n")[0]).toBe(message);
			expect(result.stderr).toContain("Usage:");
		}
		const json = JSON.parse((await admin("assistant", "list", "--json")).stderr) as { error: Record<string, unknown> };
		expect(json.error).toMatchObject({ code: "USAGE", fields: [{ field: "--workspace", issue: "Required" }] });
	});

	it("npm run admin starts the bundle without rebuilding it when no source changed, and rebuilds when one did", async () => {
		const root = fileURLToPath(new URL("../..", import.meta.url));
		const bundle = `${root}dist/admin.js`;
		const manifestPath = `${root}dist/build-inputs.json`;
		const npmAdmin = async (...args: string[]): Promise<OperatorCliResult> => {
			try {
				const { stdout, stderr } = await promisify(execFile)("npm", ["run", "--silent", "admin", "--", ...args], { cwd: root, env: { ...process.env, DATABASE_URL: UNREACHABLE_DATABASE } });
				return { code: 0, stdout, stderr };
			} catch (error) {
				return error as OperatorCliResult;
			}
		};

		const before = (await stat(bundle)).mtimeMs;
		const fresh = await npmAdmin("help");
		expect(fresh.code).toBe(0);
		expect(fresh.stdout).toContain("Commands:");
		expect((await stat(bundle)).mtimeMs).toBe(before);

		// A source that differs from the one built (as after a checkout): the launcher builds first.
		const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { entries: { admin: Record<string, number> } };
		const source = "scripts/admin/help.ts";
		expect(manifest.entries.admin[source]).toEqual(expect.any(Number));
		manifest.entries.admin[source] -= 1000;
		await writeFile(manifestPath, JSON.stringify(manifest));
		const rebuilt = await npmAdmin("help");
		expect(rebuilt.code).toBe(0);
		expect((await stat(bundle)).mtimeMs).toBeGreaterThan(before);
		const rewritten = JSON.parse(await readFile(manifestPath, "utf8")) as { entries: { admin: Record<string, number> } };
		expect(rewritten.entries.admin[source]).toBe((await stat(`${root}${source}`)).mtimeMs);
	});
});
