/** The authorization server's settings (README, Configuration; docs/oauth.md). */
export interface OAuthOptions {
	/** OAUTH_ACCESS_TOKEN_TTL_SECONDS: lifetime of the JWT access tokens of /mcp. */
	accessTokenTtlSeconds: number;
	/** OAUTH_REFRESH_REUSE_GRACE_SECONDS: how long a rotated refresh token still yields an access token (0: strict reuse detection). */
	refreshReuseGraceSeconds: number;
	/** OAUTH_REFRESH_TOKEN_TTL_SECONDS: a refresh token unused this long expires (each rotation starts a new one). */
	refreshTokenTtlSeconds: number;
	/**
	 * OAUTH_CLIENT_METADATA_ALLOW_LOOPBACK: fetch Client ID Metadata Documents from loopback
	 * addresses too (tests and local development only; private and link-local stay refused).
	 */
	clientMetadataAllowLoopback: boolean;
	/** Extra certificate authorities (PEM) trusted when fetching metadata documents; tests use a self-signed one. */
	clientMetadataCertificateAuthorities?: string;
}

export const DEFAULT_OAUTH_OPTIONS: Readonly<OAuthOptions> = Object.freeze({
	accessTokenTtlSeconds: 600,
	refreshReuseGraceSeconds: 60,
	refreshTokenTtlSeconds: 30 * 24 * 3600,
	clientMetadataAllowLoopback: false,
});

/** Authorization codes live one minute and are single-use (RFC 9700 §2.1.1). */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
