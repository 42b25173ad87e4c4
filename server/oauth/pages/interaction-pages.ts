import { redirectDestination } from "../../modules/oauth/client-metadata-policy";
import type { UserOrganization } from "../../modules/oauth/list-user-organizations";
import type { McpScope } from "../../shared/principal";
import { errorBlock, html, page, signInForm } from "./layout";

export interface ClientSummary {
	name: string;
	clientId: string;
	redirectUri: string;
}

const SCOPE_WORDS: Record<McpScope, { title: string; detail: string }> = {
	"mcp:read": { title: "Read", detail: "See assistants, versions, deployments, knowledge, evaluations and traces." },
	"mcp:write": { title: "Write", detail: "Create and change assistants and knowledge, publish and roll back, run assistants and evaluations (runs cost money)." },
	"mcp:admin": { title: "Administer", detail: "Manage members, API keys and provider credentials." },
};

/** Where the person goes next, by its host alone (what decides who receives them), then the whole address. */
function destinationBlock(redirectUri: string) {
	const destination = redirectDestination(redirectUri);
	const where =
		destination.kind === "host"
			? html`<strong>${destination.host}</strong>`
			: destination.kind === "application"
				? html`the application on this device that opens <strong>${destination.scheme}:</strong> links`
				: html`<strong>an address that cannot be read</strong>`;
	return html`<p class="muted">After you decide, you will be sent to ${where} <span class="address">(<code>${redirectUri}</code>)</span></p>`;
}

function clientBlock(client: ClientSummary) {
	return html`<p><strong>${client.name}</strong> wants to use this platform on your behalf.</p>
${destinationBlock(client.redirectUri)}`;
}

export function renderSignInPage(input: { client: ClientSummary; action: string; csrf: string; email?: string; error?: string }): string {
	return page(
		`Sign in to connect ${input.client.name}`,
		html`<h1>Sign in to connect an application</h1>
${clientBlock(input.client)}
${errorBlock(input.error)}
${signInForm(input)}
<form method="post" action="${input.action.replace(/\/sign-in$/, "/deny")}">
<input type="hidden" name="csrf" value="${input.csrf}">
<button type="submit" class="secondary">Cancel and return to the application</button>
</form>`,
	);
}

export function renderConsentPage(input: {
	client: ClientSummary;
	email: string;
	organizations: UserOrganization[];
	/** Scopes the user's roles could use, in any of their organizations. */
	offeredScopes: McpScope[];
	action: string;
	denyAction: string;
	csrf: string;
	selectedOrganization?: string;
	selectedScopes?: string[];
	error?: string;
	/** Signs out of this server and back to the sign-in form (another person's account on a shared computer). */
	switchAccountAction: string;
}): string {
	const selectedOrganization = input.selectedOrganization ?? input.organizations[0]?.id;
	const selectedScopes = new Set(input.selectedScopes ?? ["mcp:read"]);
	const organizationChoices = input.organizations.map(
		(organization) =>
			html`<label><input type="radio" name="organization" value="${organization.id}"${selectedOrganization === organization.id ? html` checked` : null}> <span>${organization.name} <span class="muted">(you are ${organization.role})</span></span></label>`,
	);
	const scopeChoices = input.offeredScopes.map((scope) => {
		const words = SCOPE_WORDS[scope];
		return html`<label><input type="checkbox" name="scope" value="${scope}"${selectedScopes.has(scope) ? html` checked` : null}${scope === "mcp:read" ? html` disabled` : null}> <span><strong>${words.title}</strong> <code>${scope}</code><br><span class="muted">${words.detail}</span></span></label>`;
	});
	return page(
		`Allow ${input.client.name}?`,
		html`<h1>Allow ${input.client.name} to act for you?</h1>
${clientBlock(input.client)}
<p class="muted">Signed in as ${input.email}.</p>
<form method="post" action="${input.switchAccountAction}">
<input type="hidden" name="csrf" value="${input.csrf}">
<button type="submit" class="secondary">Not you? Use another account</button>
</form>
${errorBlock(input.error)}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrf}">
<input type="hidden" name="scope" value="mcp:read">
<fieldset>
<legend>Organization</legend>
${organizationChoices}
${
	input.organizations.length > 1
		? html`<label><input type="radio" name="organization" value="all"${selectedOrganization === "all" ? html` checked` : null}> <span>All my organizations <span class="muted">(also any I join later)</span></span></label>`
		: null
}
</fieldset>
<fieldset>
<legend>Access</legend>
${scopeChoices}
<p class="muted">A tool runs only when both the access you grant here and your role in the organization allow it.</p>
</fieldset>
<button type="submit">Allow</button>
</form>
<form method="post" action="${input.denyAction}">
<input type="hidden" name="csrf" value="${input.csrf}">
<button type="submit" class="secondary">Deny</button>
</form>`,
	);
}
