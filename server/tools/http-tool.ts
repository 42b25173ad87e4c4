import { type HttpTool, SECRET_REFERENCE, TOOL_DEFAULTS, URL_PLACEHOLDER } from "../../contract/inputs/assistant-tools";
import { findEgressRefusal } from "../egress/egress-refused-error";
import { type RunnableTool, type ToolEnvironment, ToolFailure } from "./tool-kind";

/** Header values with `{{secret:NAME}}` replaced by the secret's value; a missing secret fails the call, by name. */
export function resolveHeaders(headers: Record<string, string> | undefined, secrets: ReadonlyMap<string, string>): Record<string, string> {
	const resolved: Record<string, string> = {};
	for (const [name, template] of Object.entries(headers ?? {})) {
		resolved[name] = template.replace(SECRET_REFERENCE, (_, secret: string) => {
			const value = secrets.get(secret);
			if (value === undefined) throw new ToolFailure(`The workspace has no secret named ${secret}; an administrator can set it (set_secret)`);
			return value;
		});
	}
	return resolved;
}

function argumentText(value: unknown): string {
	return typeof value === "string" ? value : JSON.stringify(value);
}

/** The request an http tool sends for these arguments: placeholders filled (encoded), query and body arguments placed. */
export function buildHttpRequest(tool: HttpTool, args: Record<string, unknown>): { url: URL; body: string | undefined } {
	const url = new URL(tool.url.replace(URL_PLACEHOLDER, (_, name: string) => encodeURIComponent(args[name] === undefined ? "" : argumentText(args[name]))));
	for (const name of tool.query ?? []) {
		if (args[name] !== undefined) url.searchParams.append(name, argumentText(args[name]));
	}
	const bodyNames = (tool.body ?? []).filter((name) => args[name] !== undefined);
	const body = bodyNames.length > 0 ? JSON.stringify(Object.fromEntries(bodyNames.map((name) => [name, args[name]]))) : undefined;
	return { url, body };
}

/** Reads at most `maxBytes` of a body, then stops reading (the connection is closed): the rest is never buffered. */
async function readBounded(response: Response, maxBytes: number): Promise<{ text: string; cut: boolean }> {
	if (!response.body) return { text: "", cut: false };
	const reader = response.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	let cut = false;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		chunks.push(value);
		size += value.byteLength;
		if (size > maxBytes) {
			cut = true;
			await reader.cancel();
			break;
		}
	}
	const text = Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8").replace(/\uFFFD$/, "");
	return { text, cut };
}

/**
 * One HTTP operation: the model's arguments in the URL, the query and the JSON body; headers with
 * workspace secrets; through the egress policy (every hop of a redirect checked); a timeout of its
 * own inside the generation's; the response cut at `maxResponseBytes` with a note saying so.
 */
export function prepareHttpTool(tool: HttpTool, environment: ToolEnvironment): RunnableTool[] {
	const timeoutMs = tool.timeoutMs ?? TOOL_DEFAULTS.httpTimeoutMs;
	const maxBytes = tool.maxResponseBytes ?? TOOL_DEFAULTS.maxResponseBytes;
	return [
		{
			definition: { name: tool.name, description: tool.description, parameters: tool.parameters },
			async run(args, signal) {
				const headers = resolveHeaders(tool.headers, environment.secrets);
				const { url, body } = buildHttpRequest(tool, args);
				if (body !== undefined) headers["content-type"] ??= "application/json";
				const timeout = AbortSignal.timeout(timeoutMs);
				let response: Response;
				try {
					response = await environment.fetch(url, { method: tool.method, headers, body, signal: AbortSignal.any([signal, timeout]), redirect: "follow" });
				} catch (error) {
					const refusal = findEgressRefusal(error);
					if (refusal) throw new ToolFailure(`Refused by the egress policy: ${refusal.message}`);
					if (timeout.aborted) throw new ToolFailure(`No answer within ${timeoutMs} ms`);
					if (signal.aborted) throw error;
					throw new ToolFailure(`The request failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
				}
				let read: { text: string; cut: boolean };
				try {
					read = await readBounded(response, maxBytes);
				} catch (error) {
					if (timeout.aborted) throw new ToolFailure(`No answer within ${timeoutMs} ms`);
					throw error;
				}
				const note = read.cut ? `\n[cut: the response was longer than ${maxBytes} bytes]` : "";
				if (!response.ok) throw new ToolFailure(`HTTP ${response.status}: ${read.text.slice(0, 2000)}${note}`);
				return read.text + note;
			},
		},
	];
}
