import { findUnstorableText } from "../../../contract/schemas/common";
/**
 * What a client may register (RFC 7591), wherever its metadata comes from: a registration, a
 * Client ID Metadata Document, or a registration stored before these rules. Each check returns
 * the problem in words, or undefined when there is none.
 */

/** The whole metadata, as JSON: a registration is a few hundred bytes; a few keys or contacts fit easily. */
export const CLIENT_METADATA_MAX_BYTES = 8 * 1024;
/** Any one field, as JSON. */
export const CLIENT_METADATA_FIELD_MAX_BYTES = 2 * 1024;
/** The name shown on the consent screen and Connected applications. */
export const CLIENT_NAME_MAX_CHARACTERS = 100;
export const REDIRECT_URIS_MAX = 10;
export const REDIRECT_URI_MAX_CHARACTERS = 1000;

/** RFC 8252 §7.3: loopback redirects are plain http to these names only. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Schemes a browser handles itself (scripts, files, inline content): never an application's redirect. */
const FORBIDDEN_SCHEMES: ReadonlySet<string> = new Set([
	"javascript:",
	"vbscript:",
	"data:",
	"blob:",
	"file:",
	"filesystem:",
	"about:",
	"view-source:",
	"ws:",
	"wss:",
	"ftp:",
	"mailto:",
	"tel:",
	"sms:",
]);

/**
 * A redirect URI is https to any host, http to a loopback host only (127.0.0.1, [::1], localhost),
 * or a native application's own scheme (RFC 8252 §7.1, e.g. `com.example.app:/callback` or
 * `cursor://…`). Never with user information (`https://trusted.example@evil.example/` reads as the
 * first host and goes to the second), a wildcard, or a fragment.
 */
export function redirectUriProblem(value: unknown): string | undefined {
	if (typeof value !== "string" || value === "") return "must be a URI";
	if (value.length > REDIRECT_URI_MAX_CHARACTERS) return `must be at most ${REDIRECT_URI_MAX_CHARACTERS} characters`;
	if (value.includes("*")) return "must not contain a wildcard (*): redirect URIs are matched exactly";
	if (/[\s\\]/.test(value)) return "must not contain spaces or backslashes";
	const url = URL.parse(value);
	if (!url) return "must be an absolute URI";
	if (url.username !== "" || url.password !== "" || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) return "must not contain user information (user@host)";
	if (value.includes("#")) return "must not contain a fragment";
	switch (url.protocol) {
		case "https:":
			if (url.hostname === "") return "must name a host";
			return undefined;
		case "http:":
			if (!LOOPBACK_HOSTS.has(url.hostname)) return "may use http only for a loopback address (127.0.0.1, [::1] or localhost); use https otherwise";
			return undefined;
		default:
			if (FORBIDDEN_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol.slice(0, -1)} scheme`;
			return undefined;
	}
}

/** Whether a redirect URI is a native application's loopback or private-scheme address (RFC 8252). */
export function isNativeRedirectUri(value: string): boolean {
	const url = URL.parse(value);
	if (!url) return false;
	if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname);
	return url.protocol !== "https:";
}

/**
 * The sizes of a client's metadata: the whole, each field, the name and the number of redirect
 * URIs. Returns the offending field and the problem.
 */
export function clientMetadataSizeProblem(metadata: Record<string, unknown>): { field: string; problem: string } | undefined {
	// Text PostgreSQL cannot store (NUL, unpaired surrogates) is refused like everywhere else, before it reaches the table.
	const unstorable = findUnstorableText(metadata)[0];
	if (unstorable) return { field: String(unstorable[0] ?? "metadata"), problem: "contains NUL (U+0000) or an unpaired UTF-16 surrogate, which cannot be stored" };
	const total = Buffer.byteLength(JSON.stringify(metadata));
	if (total > CLIENT_METADATA_MAX_BYTES) return { field: "metadata", problem: `is ${total} bytes; at most ${CLIENT_METADATA_MAX_BYTES} are accepted` };
	for (const [field, value] of Object.entries(metadata)) {
		if (value === undefined) continue;
		const size = Buffer.byteLength(JSON.stringify(value));
		if (size > CLIENT_METADATA_FIELD_MAX_BYTES) return { field, problem: `is ${size} bytes; at most ${CLIENT_METADATA_FIELD_MAX_BYTES} are accepted per field` };
	}
	const name = metadata.client_name;
	if (typeof name === "string" && [...name].length > CLIENT_NAME_MAX_CHARACTERS) return { field: "client_name", problem: `must be at most ${CLIENT_NAME_MAX_CHARACTERS} characters` };
	const redirectUris = metadata.redirect_uris;
	if (Array.isArray(redirectUris) && redirectUris.length > REDIRECT_URIS_MAX) return { field: "redirect_uris", problem: `must list at most ${REDIRECT_URIS_MAX} URIs` };
	return undefined;
}

/** How the consent screen names where a person will be sent: the host alone, unambiguous (IDNs in punycode), or the application's scheme. */
export function redirectDestination(value: string): { kind: "host"; host: string } | { kind: "application"; scheme: string } | { kind: "unknown" } {
	const url = URL.parse(value);
	if (!url) return { kind: "unknown" };
	if (url.protocol === "https:" || url.protocol === "http:") return { kind: "host", host: url.host };
	return { kind: "application", scheme: url.protocol.slice(0, -1) };
}
