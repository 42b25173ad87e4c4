import { describe, expect, it } from "vitest";
import type { AssistantConfig } from "../../web/src/features/assistants/assistant-queries";
import { diffConfigs, diffLines } from "../../web/src/features/assistants/diff";
import { comparable, fieldKey, patchFromState, stateFromConfig } from "../../web/src/features/assistants/editor-model";

/** The draft editor's and the comparison page's logic, without a browser. */
describe("the draft editor's model", () => {
	// A field this editor has no form for (a newer server's), and a setting likewise.
	const tools = [{ type: "http", name: "weather", url: "https://weather.example/api" }];
	const config = {
		provider: "openai",
		model: "gpt-4o-mini",
		systemPrompt: "Hello {{name}}",
		variables: [{ name: "name", type: "string", required: true, default: "Ada" }],
		generation: { temperature: 0.5, maxToolSteps: 4 },
		knowledge: [{ sourceId: "ks_1", topK: 5 }],
		tools,
	} as unknown as AssistantConfig;

	it("shows fields it has no form for as JSON, and saves them back with the rest unchanged", () => {
		const state = stateFromConfig(config);
		expect(JSON.parse(state.otherJson)).toEqual({ tools, generation: { maxToolSteps: 4 } });
		const { patch, issues } = patchFromState(state);
		expect(issues).toEqual({});
		expect(patch).toEqual(config);

		const edited = { ...state, otherJson: JSON.stringify({ tools: [], generation: { maxToolSteps: 2 } }) };
		expect(comparable(edited)).not.toBe(comparable(state));
		expect(patchFromState(edited).patch).toMatchObject({ tools: [], generation: { temperature: 0.5, maxToolSteps: 2 } });
	});

	it("refuses before sending what is not a number or not JSON, naming the field as the server would", () => {
		const state = stateFromConfig(config);
		const { issues } = patchFromState({
			...state,
			generation: { ...state.generation, temperature: "warm" },
			knowledge: [{ ...(state.knowledge[0] as (typeof state.knowledge)[number]), topK: "" }],
			otherJson: "{ not json",
		});
		expect(Object.keys(issues).sort()).toEqual(["generation.temperature", "knowledge.0.topK", "otherJson"]);
	});

	it("reads the server's field names in either form", () => {
		expect(fieldKey("patch.variables[0].default")).toBe("variables.0.default");
		expect(fieldKey("config.variables.0.default")).toBe("variables.0.default");
		expect(fieldKey("patch.generation.temperature")).toBe("generation.temperature");
		expect(fieldKey("config.tools.1.url")).toBe("tools.1.url");
	});
});

describe("comparing two configurations", () => {
	it("diffs the prompt line by line, removals before additions", () => {
		expect(diffLines("a\nb\nc", "a\nB\nc\nd").map((line) => `${line.kind} ${line.text}`)).toEqual(["same a", "removed b", "added B", "same c", "added d"]);
		expect(diffLines("same", "same")).toEqual([{ kind: "same", text: "same", before: 1, after: 1 }]);
	});

	it("stays fast and whole for two long, entirely different prompts", () => {
		const before = Array.from({ length: 5000 }, (_, index) => `old line ${index}`).join("\n");
		const after = Array.from({ length: 5000 }, (_, index) => `new line ${index}`).join("\n");
		const started = performance.now();
		const changes = diffLines(before, after);
		expect(performance.now() - started).toBeLessThan(2000);
		expect(changes.filter((line) => line.kind === "removed")).toHaveLength(5000);
		expect(changes.filter((line) => line.kind === "added")).toHaveLength(5000);
	});

	it("compares settings field by field, list entries by name rather than position", () => {
		const before = { provider: "openai", model: "a", systemPrompt: "x", variables: [{ name: "one", type: "string" }, { name: "two", type: "number" }], generation: {} };
		const after = { provider: "openai", model: "b", systemPrompt: "y", variables: [{ name: "two", type: "number" }, { name: "one", type: "boolean" }], generation: { temperature: 1 } };
		const changed = diffConfigs(before, after).filter((field) => field.change !== "same");
		expect(changed).toEqual([
			{ field: "generation.temperature", before: undefined, after: "1", change: "added" },
			{ field: "model", before: '"a"', after: '"b"', change: "changed" },
			{ field: "variables[one].type", before: '"string"', after: '"boolean"', change: "changed" },
		]);
	});
});
