import { useWorkspace } from "../../app/workspace-context";
import { CodeBlock } from "../../ui/code-block";
import { PageHeader, Section } from "../../ui/page";

/** Getting started: where the API is, and the first calls, filled in for this workspace. */
export function HomePage() {
	const { organization, workspace, role } = useWorkspace();
	const baseUrl = window.location.origin;
	return (
		<>
			<PageHeader title={workspace.name} description={`${organization.name} · your role: ${role}`} />
			<Section title="Getting started" description="Your programs call the API with a workspace API key; you change what they run here, with no change to them.">
				<p>
					Base URL: <code>{baseUrl}</code>
				</p>
				<CodeBlock
					label="A generation with curl"
					code={`curl ${baseUrl}/runtime/execute \\\n  -H "Authorization: Bearer $API_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '{"providerName":"openai","model":"gpt-4.1-mini","messages":[{"role":"user","content":"Hello"}]}'`}
				/>
				<CodeBlock label="Connect an MCP client" code={`${baseUrl}/mcp`} />
			</Section>
		</>
	);
}
