import type { KoaContextWithOIDC } from "oidc-provider";

/**
 * What every response oidc-provider writes carries (its error pages, the form_post page, JSON):
 * nothing loads from elsewhere, no script runs but the one form_post needs, no framing
 * (clickjacking), no MIME sniffing, no referrer (codes travel in URLs).
 */
const PROVIDER_CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function setProviderPageHeaders(ctx: KoaContextWithOIDC): void {
	ctx.set("content-security-policy", PROVIDER_CONTENT_SECURITY_POLICY);
	ctx.set("x-content-type-options", "nosniff");
	ctx.set("x-frame-options", "DENY");
	ctx.set("referrer-policy", "no-referrer");
}

/**
 * After oidc-provider answered: its form_post page added the hash of its auto-submit script to
 * script-src (oidc-provider's script_src_sha.js does so when a script-src is set), so 'none' goes
 * and the form may post to where the page sends it (the client's redirect URI, by origin).
 */
export function applyProviderPageHeaders(ctx: KoaContextWithOIDC): void {
	const policy = ctx.response.get("content-security-policy");
	if (!policy) return;
	const directives = new Map(
		policy
			.split(";")
			.map((directive) => directive.trim().split(/\s+/))
			.filter((parts) => parts[0])
			.map(([name, ...values]) => [name, values] as const),
	);
	const scripts = directives.get("script-src") ?? [];
	if (!scripts.some((source) => source.startsWith("'sha256-"))) return;
	directives.set(
		"script-src",
		scripts.filter((source) => source !== "'none'"),
	);
	const target = typeof ctx.body === "string" ? formActionSource(ctx.body) : undefined;
	directives.set("form-action", target ? [target] : ["'none'"]);
	ctx.set(
		"content-security-policy",
		[...directives].map(([name, values]) => [name, ...values].join(" ")).join("; "),
	);
}

/** The CSP source for the form_post page's form target: its origin, or its scheme for a native application's URI. */
function formActionSource(page: string): string | undefined {
	const action = /<form method="post" action="([^"]*)"/.exec(page)?.[1];
	if (!action) return undefined;
	const url = URL.parse(action.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
	if (!url) return undefined;
	if (url.protocol === "https:" || url.protocol === "http:") return url.origin;
	return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}
