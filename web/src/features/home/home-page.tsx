import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useWorkspace } from "../../app/workspace-context";
import { Alert } from "../../ui/alert";
import { CodeBlock } from "../../ui/code-block";
import { PageHeader, Section } from "../../ui/page";
import { assistantListQuery } from "../assistants/assistant-queries";

const PLACEHOLDER_SLUG = "your-assistant";

/** Getting started: where the API is, and the first calls, filled in with this workspace's own assistant. */
export function HomePage() {
	const { organization, workspace, role } = useWorkspace();
	const baseUrl = window.location.origin;
	const assistants = useQuery(assistantListQuery(workspace.id, false));
	const published =
		assistants.data?.find((assistant) => assistant.deployments.some((deployment) => deployment.environment === "production")) ??
		assistants.data?.find((assistant) => assistant.deployments.length > 0);
	const environment = published && !published.deployments.some((deployment) => deployment.environment === "production") ? published.deployments[0]?.environment : undefined;
	const slug = published?.slug ?? PLACEHOLDER_SLUG;
	const body = JSON.stringify({ input: "Hello", ...(environment ? { environment } : {}) });
	const sdkOptions = environment ? `{ input: "Hello", environment: "${environment}" }` : `{ input: "Hello" }`;
	return (
		<>
			<PageHeader title={workspace.name} description={`${organization.name} · your role: ${role}`} />
			<Section title="Getting started" description="Your programs call the API with a workspace API key; you change what they run here, with no change to them.">
				<p>
					Base URL: <code>{baseUrl}</code>
				</p>
				{assistants.isSuccess && !published ? (
					<Alert tone="info">
						<p>
							The snippets below use <code>{PLACEHOLDER_SLUG}</code> in place of an assistant: publish one to fill in its slug.{" "}
							<Link to="/workspaces/$workspaceId/assistants" params={{ workspaceId: workspace.id }}>
								Go to Assistants
							</Link>
						</p>
					</Alert>
				) : null}
				{published ? (
					<p>
						Calling <strong>{published.name}</strong> (<code>{published.slug}</code>){environment ? `, published to ${environment}` : ", as published to production"}.
					</p>
				) : null}
				<CodeBlock
					label="Call an assistant with curl"
					code={`curl ${baseUrl}/runtime/assistants/${slug} \\\n  -H "Authorization: Bearer $API_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '${body}'`}
				/>
				<CodeBlock
					label="Call it with the TypeScript SDK"
					code={`import { PlatformClient } from "@ai-app-platform/sdk";\n\nconst client = new PlatformClient({ apiKey: process.env.API_KEY, baseURL: "${baseUrl}" });\nconst answer = await client.assistants.run("${slug}", ${sdkOptions});\nconsole.log(answer.message.content);`}
				/>
			</Section>
			<Section title="Connect an MCP client" description="Assistants, knowledge, traces and evaluations are also tools for MCP clients; the client signs you in and you approve what it may do.">
				<CodeBlock label="MCP server address (Streamable HTTP)" code={`${baseUrl}/mcp`} />
				<CodeBlock label="Cursor: ~/.cursor/mcp.json" code={JSON.stringify({ mcpServers: { platform: { url: `${baseUrl}/mcp` } } }, null, 2)} />
				<CodeBlock label="Claude Desktop: claude_desktop_config.json" code={JSON.stringify({ mcpServers: { platform: { command: "npx", args: ["mcp-remote", `${baseUrl}/mcp`] } } }, null, 2)} />
				<p className="muted">
					Approved clients are listed under <Link to="/account/connections">Connected applications</Link>, where you revoke them.
				</p>
			</Section>
		</>
	);
}
