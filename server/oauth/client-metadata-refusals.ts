/** Why a client named by a metadata document URL was refused: a sentence for the person, the exact cause for the log. */
export interface ClientMetadataRefusal {
	/** For the error page: what went wrong with the document, without details of the network behind it. */
	message: string;
	/** For the operator's log: the whole chain of causes (address checks, TLS, status). */
	reason: string;
}

interface OAuthErrorLike {
	error?: string;
	error_description?: string;
	error_detail?: string;
	cause?: unknown;
}

const DOCUMENT_PREFIX = "client_id metadata document ";

function causeChain(error: unknown): string {
	const messages: string[] = [];
	for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
		if (!messages.includes(current.message)) messages.push(current.message);
	}
	return messages.join(": ");
}

/** What the fetch ran into, in words that reveal nothing about hosts other than the one named. */
function describeFetchFailure(oauthError: OAuthErrorLike): string {
	const status = /unexpected response status (\d+)/.exec(oauthError.error_detail ?? "")?.[1];
	if (status && status.startsWith("3")) return `its address answered with a redirect (HTTP ${status}); documents must be served directly, redirects are not followed`;
	if (status) return `its address answered HTTP ${status} instead of the document`;
	const cause = oauthError.cause;
	if (cause instanceof Error && cause.name === "TimeoutError") return "it did not arrive within 2.5 seconds";
	// oidc-provider 9.13 cancels an oversized body it is still iterating when it was streamed without a
	// Content-Length: that throws "ReadableStream is locked" instead of its "response too large" (the
	// loop's exit cancels the stream all the same).
	if (cause instanceof Error && (cause.message === "response too large" || /ReadableStream is locked/.test(cause.message))) return "it is larger than 5 KiB";
	if (cause instanceof SyntaxError) return "it is not JSON";
	return "it could not be fetched; documents are fetched over HTTPS from public addresses only, with a certificate this server trusts";
}

/**
 * Recognizes the refusals of a client whose `client_id` is a URL (Client ID Metadata Documents)
 * among oidc-provider's errors; undefined for any other error.
 */
export function describeClientMetadataRefusal(clientId: unknown, error: unknown): ClientMetadataRefusal | undefined {
	if (typeof clientId !== "string" || typeof error !== "object" || error === null) return undefined;
	const oauthError = error as OAuthErrorLike;
	const description = oauthError.error_description ?? "";
	const intro = `The application names itself by the address of its metadata document, ${clientId}, and that document cannot be used:`;
	const outro = "Nothing was shared. Tell the application's developer.";
	if (oauthError.error === "invalid_client" && /^http:\/\//i.test(clientId)) {
		return { message: `${intro} its address is plain HTTP, and documents are fetched from https:// addresses only. ${outro}`, reason: "not an https URL" };
	}
	const reason = [description, oauthError.error_detail, causeChain(oauthError.cause)].filter((part, index, all) => part && all.indexOf(part) === index).join(": ");
	if (oauthError.error === "invalid_client" && description.startsWith(`${DOCUMENT_PREFIX}fetch`)) {
		return { message: `${intro} ${describeFetchFailure(oauthError)}. ${outro}`, reason };
	}
	// The document's content: oidc-provider's own checks, then the client metadata schema (where a bad redirect_uris is invalid_redirect_uri).
	const invalidContent = oauthError.error === "invalid_client_metadata" || (oauthError.error === "invalid_redirect_uri" && description.startsWith("redirect_uris"));
	if (!invalidContent || !/^https:\/\//i.test(clientId)) return undefined;
	const problem = description.startsWith(DOCUMENT_PREFIX) ? description.slice(DOCUMENT_PREFIX.length) : description;
	const plain = problem === "client_id does not match the expected value" ? "its client_id is not the address it was fetched from" : `it is not valid client metadata (${problem})`;
	return { message: `${intro} ${plain}. ${outro}`, reason };
}
