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
	/** OAUTH_REGISTRATIONS_PER_HOUR: dynamic client registrations per client address (TRUSTED_PROXIES; IPv6: per /64) and hour, on all instances together; 0 = unlimited. */
	registrationsPerHour: number;
	/** A registered client never used for an authorization is removed this long after registering. */
	unusedClientRetentionSeconds: number;
	/** A client with no live connection is removed once nothing happened with it for this long. */
	idleClientRetentionSeconds: number;
	/** How often each instance sweeps expired records, unused clients and ended sessions. */
	sweepIntervalSeconds: number;
}

export const DEFAULT_OAUTH_OPTIONS: Readonly<OAuthOptions> = Object.freeze({
	accessTokenTtlSeconds: 600,
	refreshReuseGraceSeconds: 60,
	refreshTokenTtlSeconds: 30 * 24 * 3600,
	clientMetadataAllowLoopback: false,
	registrationsPerHour: 30,
	unusedClientRetentionSeconds: 24 * 3600,
	idleClientRetentionSeconds: 30 * 24 * 3600,
	sweepIntervalSeconds: 3600,
});

/** Authorization codes live one minute and are single-use (RFC 9700 §2.1.1). */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
