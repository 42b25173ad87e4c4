import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** What a presigned upload URL authorises: one object, one content type, one exact size, until a time. */
export interface UploadGrant {
	key: string;
	contentType: string;
	byteSize: number;
	/** Unix seconds. */
	expiresAt: number;
}

/**
 * Signs upload grants into URL-safe tokens (`payload.signature`, HMAC-SHA256). The key is derived
 * from SECRET_KEY with a purpose label so it cannot be confused with the SecretBox key.
 */
export class UploadTokenSigner {
	private readonly key: Buffer;

	constructor(secretKey: string) {
		this.key = createHash("sha256").update(`upload-url:${secretKey}`).digest();
	}

	sign(grant: UploadGrant): string {
		const payload = Buffer.from(JSON.stringify([grant.key, grant.contentType, grant.byteSize, grant.expiresAt]), "utf8").toString("base64url");
		return `${payload}.${this.mac(payload)}`;
	}

	/** The grant, or why the token is refused; expiry is checked by the caller against its clock. */
	verify(token: string): UploadGrant | null {
		const [payload, signature, extra] = token.split(".");
		if (!payload || !signature || extra !== undefined) return null;
		const expected = Buffer.from(this.mac(payload), "utf8");
		const given = Buffer.from(signature, "utf8");
		if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
		try {
			const [key, contentType, byteSize, expiresAt] = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
			if (typeof key !== "string" || typeof contentType !== "string" || typeof byteSize !== "number" || typeof expiresAt !== "number") return null;
			return { key, contentType, byteSize, expiresAt };
		} catch {
			return null;
		}
	}

	private mac(payload: string): string {
		return createHmac("sha256", this.key).update(payload).digest("base64url");
	}
}
