/**
 * A runtime answer says what served it: the trace id (body or `done`, and X-Trace-Id) on every
 * generation, and for a deployed assistant the published version and environment (body or `done`,
 * and X-Assistant-Version / X-Assistant-Environment). The trace id is the id of the trace row
 * written, so the MCP tool get_trace finds it, asked right after the answer.
 */
import { describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { createEnvironment } from "../../server/modules/environments/create-environment";
import type { TestPlatform, TestWorkspace } from "../helpers/platform";
import { parseSseFrames, type ProviderStandIn } from "../helpers/provider-stand-in";
import { connectAs, userPrincipal } from "../mcp/mcp-helpers";
import { executeBody, useRuntimeTestbed, workspaceWithCredential } from "./runtime-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

const TRACE_ID = /^trace_[0-9A-Z]{26}$/;

interface Trace {
	id: string;
	kind: string;
	versionId: string | null;
	streamed: boolean;
	output: string | null;
	errorCode: string | null;
}

/** get_trace over MCP, as the workspace's owner; the answer's id, asked at once (no flush first). */
async function getTrace(workspace: TestWorkspace, traceId: string): Promise<Trace> {
	const session = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read"] }));
	try {
		return await session.call<Trace>("get_trace", { workspaceId: workspace.workspaceId, traceId });
	} finally {
		await session.close();
	}
}

/** "support-bot": version 1 serves staging, version 2 production (two models, to tell them apart). */
async function assistantWithTwoVersions() {
	const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
	const context = () => platform.operator();
	const { workspaceId } = workspace;
	await createAssistant(context(), { workspaceId, slug: "support-bot", name: "Support" });
	await createEnvironment(context(), { workspaceId, slug: "staging", name: "Staging" });
	const versionIds: string[] = [];
	for (const model of ["model-one", "model-two"]) {
		await updateAssistantDraft(context(), { workspaceId, slug: "support-bot", patch: { model, systemPrompt: "Be brief.", generation: { maxRetries: 0 } } });
		versionIds.push((await createAssistantVersion(context(), { workspaceId, slug: "support-bot" })).id);
	}
	await publishAssistantVersion(context(), { workspaceId, slug: "support-bot", version: 1, environment: "staging" });
	await publishAssistantVersion(context(), { workspaceId, slug: "support-bot", version: 2 });
	return { workspace, versionIds };
}

describe("a deployed assistant's answer names its version and trace", () => {
	it("JSON: the body and the headers say which version and environment answered and which trace recorded it; get_trace finds it", async () => {
		const { workspace, versionIds } = await assistantWithTwoVersions();
		standIn.script({ kind: "completion", content: "from production" });
		const response = await platform.request("POST", "/runtime/assistants/support-bot", { key: workspace.apiKey, body: { input: "Where is my order?" } });
		expect(response.status).toBe(200);
		const body = await response.json();
		expect(body).toMatchObject({ message: { content: "from production" }, assistant: { slug: "support-bot", version: 2, environment: "production" }, traceId: expect.stringMatching(TRACE_ID) });
		expect(response.headers.get("x-trace-id")).toBe(body.traceId);
		expect(response.headers.get("x-assistant-version")).toBe("2");
		expect(response.headers.get("x-assistant-environment")).toBe("production");
		expect(await getTrace(workspace, body.traceId)).toMatchObject({ id: body.traceId, kind: "assistant", versionId: versionIds[1], streamed: false, output: "from production" });

		standIn.script({ kind: "completion", content: "from staging" });
		const staging = await platform.request("POST", "/runtime/assistants/support-bot", { key: workspace.apiKey, body: { input: "hi", environment: "staging" } });
		const stagingBody = await staging.json();
		expect(stagingBody.assistant).toEqual({ slug: "support-bot", version: 1, environment: "staging" });
		expect(staging.headers.get("x-assistant-version")).toBe("1");
		expect(stagingBody.traceId).not.toBe(body.traceId);
		expect(await getTrace(workspace, stagingBody.traceId)).toMatchObject({ versionId: versionIds[0], output: "from staging" });
	});

	it("stream: the headers come with the stream's opening and `done` repeats them; get_trace finds the trace", async () => {
		const { workspace, versionIds } = await assistantWithTwoVersions();
		standIn.script({ kind: "completion", content: ["Hel", "lo"] });
		const response = await platform.request("POST", "/runtime/assistants/support-bot/stream", { key: workspace.apiKey, body: { input: "hi" } });
		expect(response.status).toBe(200);
		// Known before a single event is read.
		const traceId = response.headers.get("x-trace-id");
		expect(traceId).toMatch(TRACE_ID);
		expect(response.headers.get("x-assistant-version")).toBe("2");
		expect(response.headers.get("x-assistant-environment")).toBe("production");
		const frames = parseSseFrames(await response.text());
		expect(frames.map((frame) => frame.event)).toEqual(["delta", "delta", "usage", "done"]);
		expect(frames.at(-1)?.data).toEqual({ finishReason: "stop", traceId, assistant: { slug: "support-bot", version: 2, environment: "production" } });
		expect(await getTrace(workspace, traceId as string)).toMatchObject({ id: traceId, kind: "assistant", versionId: versionIds[1], streamed: true, output: "Hello" });
	});

	it("execute_assistant over MCP answers the same way, and its trace is found", async () => {
		const { workspace, versionIds } = await assistantWithTwoVersions();
		standIn.script({ kind: "completion", content: "over MCP" });
		const session = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read", "mcp:write"] }));
		try {
			const answer = await session.call<{ traceId: string; assistant: unknown; version: number }>("execute_assistant", { workspaceId: workspace.workspaceId, slug: "support-bot", input: "hi" });
			expect(answer).toMatchObject({ assistant: { slug: "support-bot", version: 2, environment: "production" }, version: 2, traceId: expect.stringMatching(TRACE_ID) });
			expect(await session.call("get_trace", { workspaceId: workspace.workspaceId, traceId: answer.traceId })).toMatchObject({ versionId: versionIds[1], output: "over MCP" });
		} finally {
			await session.close();
		}
	});

	it("a replayed answer (same Idempotency-Key) names the same trace and version as the first", async () => {
		const { workspace } = await assistantWithTwoVersions();
		standIn.script({ kind: "completion", content: "once" });
		const send = () => platform.request("POST", "/runtime/assistants/support-bot", { key: workspace.apiKey, body: { input: "hi" }, headers: { "idempotency-key": "same-call" } });
		const first = await send();
		const firstBody = await first.json();
		const replay = await send();
		expect(replay.headers.get("idempotent-replayed")).toBe("true");
		expect(await replay.json()).toEqual(firstBody);
		expect(replay.headers.get("x-trace-id")).toBe(firstBody.traceId);
		expect(replay.headers.get("x-assistant-version")).toBe("2");
		expect(standIn.requests).toHaveLength(1);
	});
});

describe("an ad-hoc answer names its trace", () => {
	it("POST /runtime/execute: `traceId` and X-Trace-Id, found by get_trace", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: "ad hoc" });
		const response = await platform.request("POST", "/runtime/execute", { key: workspace.apiKey, body: executeBody() });
		const body = await response.json();
		expect(body.traceId).toMatch(TRACE_ID);
		expect(response.headers.get("x-trace-id")).toBe(body.traceId);
		expect(response.headers.get("x-assistant-version")).toBeNull();
		expect(await getTrace(workspace, body.traceId)).toMatchObject({ id: body.traceId, kind: "execute", versionId: null, output: "ad hoc" });
	});

	it("POST /runtime/stream: X-Trace-Id at the opening, `traceId` in `done`, found by get_trace", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["ad", " hoc"] });
		const response = await platform.request("POST", "/runtime/stream", { key: workspace.apiKey, body: executeBody() });
		const traceId = response.headers.get("x-trace-id");
		expect(traceId).toMatch(TRACE_ID);
		expect(parseSseFrames(await response.text()).at(-1)).toEqual({ event: "done", data: { finishReason: "stop", traceId } });
		expect(await getTrace(workspace, traceId as string)).toMatchObject({ kind: "execute", streamed: true, output: "ad hoc" });
	});
});

describe("a failed generation's error answer names its trace when one was written", () => {
	it("a provider failure (JSON and before a stream opens) carries X-Trace-Id, and the trace records the error", async () => {
		const { workspace } = await assistantWithTwoVersions();
		for (const path of ["/runtime/assistants/support-bot", "/runtime/assistants/support-bot/stream", "/runtime/execute"]) {
			standIn.script({ kind: "error", status: 500 });
			const body = path === "/runtime/execute" ? executeBody({ config: { maxRetries: 0 } }) : { input: "hi" };
			const response = await platform.request("POST", path, { key: workspace.apiKey, body });
			expect(response.status).toBe(502);
			expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR" });
			const traceId = response.headers.get("x-trace-id");
			expect(traceId, path).toMatch(TRACE_ID);
			expect(await getTrace(workspace, traceId as string)).toMatchObject({ id: traceId, errorCode: "INTERNAL_ERROR", output: "" });
		}
	});

	it("a refusal before any generation (no credential for the provider, unknown assistant) names no trace", async () => {
		const workspace = await platform.createWorkspace();
		const missingCredential = await platform.request("POST", "/runtime/execute", { key: workspace.apiKey, body: executeBody() });
		expect(missingCredential.status).toBe(400);
		expect(missingCredential.headers.get("x-trace-id")).toBeNull();
		const unknown = await platform.request("POST", "/runtime/assistants/nobody", { key: workspace.apiKey, body: { input: "hi" } });
		expect(unknown.status).toBe(404);
		expect(unknown.headers.get("x-trace-id")).toBeNull();
	});
});
