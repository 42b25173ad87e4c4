import type { ConnectionView } from "../../modules/oauth/list-connections";
import { errorBlock, html, page, signInForm } from "./layout";

export const CONNECTIONS_PATH = "/oauth/connections";

export function renderConnectionsSignInPage(input: { csrf: string; email?: string; error?: string }): string {
	return page(
		"Sign in: Connected applications",
		html`<h1>Connected applications</h1>
<p>Sign in to see the applications you allowed to act for you, and revoke them.</p>
${errorBlock(input.error)}
${signInForm({ action: `${CONNECTIONS_PATH}/sign-in`, csrf: input.csrf, email: input.email })}`,
	);
}

function describeTime(iso: string | null): string {
	return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "never";
}

export function renderConnectionsPage(input: { email: string; connections: ConnectionView[]; csrf: string; notice?: string }): string {
	// Revoked ones, and ones that ended unused, are gone for the person: only what can still act is listed.
	const live = input.connections.filter((connection) => connection.revokedAt === null && connection.expiresAt !== null);
	const rows = live.map(
		(connection) => html`<tr>
<td><strong>${connection.clientName ?? connection.clientId}</strong><br><span class="muted">${connection.clientId}</span></td>
<td>${connection.organizationName ?? "All my organizations"}</td>
<td>${connection.scopes.join(", ")}</td>
<td>${describeTime(connection.createdAt)}</td>
<td>${describeTime(connection.lastUsedAt)}</td>
<td><form method="post" action="${CONNECTIONS_PATH}/${connection.id}/revoke">
<input type="hidden" name="csrf" value="${input.csrf}">
<button type="submit" class="danger" aria-label="Revoke ${connection.clientName ?? connection.clientId}">Revoke</button>
</form></td>
</tr>`,
	);
	return page(
		"Connected applications",
		html`<h1>Connected applications</h1>
<p class="muted">Signed in as ${input.email}.</p>
${input.notice ? html`<div role="status"><p>${input.notice}</p></div>` : null}
${
	live.length === 0
		? html`<p>No application is connected to your account.</p>`
		: html`<p>These applications can act for you over MCP. Revoking one stops it on its next request.</p>
<div class="table-wrap"><table>
<caption class="muted" style="text-align:left">Applications with access</caption>
<thead><tr><th scope="col">Application</th><th scope="col">Organization</th><th scope="col">Access</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
<form method="post" action="${CONNECTIONS_PATH}/sign-out">
<input type="hidden" name="csrf" value="${input.csrf}">
<button type="submit" class="secondary">Sign out</button>
</form>
`,
		{ wide: true },
	);
}
