/** Every command of the operator CLI, and the groups they form; the parser and the help are built from these. */
import { ADMINISTRATION_COMMANDS } from "./administration-commands";
import { ASSISTANT_COMMANDS } from "./assistant-commands";
import type { CommandSpec } from "./command-spec";
import { EVALUATION_COMMANDS } from "./evaluation-commands";
import { KNOWLEDGE_COMMANDS } from "./knowledge-commands";
import { OAUTH_COMMANDS } from "./oauth-commands";
import { TRACE_COMMANDS } from "./trace-commands";

export const COMMANDS: readonly CommandSpec[] = [
	...ADMINISTRATION_COMMANDS,
	...ASSISTANT_COMMANDS,
	...KNOWLEDGE_COMMANDS,
	...TRACE_COMMANDS,
	...EVALUATION_COMMANDS,
	...OAUTH_COMMANDS,
];

/** One line per group, in the order `admin help` lists them. */
export const GROUPS: Readonly<Record<string, string>> = {
	organization: "Organizations: list them; turn administration over MCP off or on",
	workspace: "Workspaces of an organization",
	member: "Members of an organization and their roles",
	invitation: "Invitation links to join an organization",
	user: "Users (create one as a member of an organization)",
	"api-key": "API keys of a workspace for the runtime and knowledge APIs",
	"provider-credential": "Model-provider credentials of a workspace",
	secret: "Workspace secrets for assistant tools' headers",
	assistant: "Assistants, their drafts, versions and deployments; run one",
	"assistant draft": "An assistant's editable configuration",
	"assistant version": "An assistant's frozen versions",
	"assistant deployment": "An assistant's publish and rollback history",
	environment: "Deployment environments of a workspace (production, staging…)",
	knowledge: "Knowledge sources, their documents, and search",
	"knowledge source": "Knowledge sources (collections of documents searched together)",
	"knowledge document": "Documents of a knowledge source",
	trace: "Traces of a workspace's generations",
	evaluation: "Evaluation datasets, cases and runs",
	"evaluation dataset": "Evaluation datasets",
	"evaluation case": "Cases of an evaluation dataset",
	"evaluation run": "Evaluation runs",
	connection: "Users' MCP connections",
	"signing-key": "Signing keys of the MCP control plane's access tokens",
};

/** MCP tools with no command, and why; the parity test accepts these and no others. */
export const TOOLS_WITHOUT_COMMAND: Readonly<Record<string, string>> = {
	whoami: "Describes the caller's OAuth connection; the operator has none (it acts on every organization)",
};
