import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keyLength: number, options: object) => Promise<Buffer>;

/** OWASP's scrypt floor (N=2^17, r=8, p=1); parameters are stored with the hash so they can rise later. */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, keyLength: 32 };

export async function hashPassword(password: string): Promise<string> {
	const salt = randomBytes(16);
	const key = await scryptAsync(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 256 * 1024 * 1024 });
	return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
	const [scheme, n, r, p, salt, expected] = stored.split("$");
	if (scheme !== "scrypt" || !salt || !expected) return false;
	const expectedKey = Buffer.from(expected, "base64url");
	const key = await scryptAsync(password, Buffer.from(salt, "base64url"), expectedKey.length, {
		N: Number(n),
		r: Number(r),
		p: Number(p),
		maxmem: 256 * 1024 * 1024,
	});
	return timingSafeEqual(key, expectedKey);
}

/** One-shot crypto.hash: no Hash object per call (API keys are hashed on every request). */
export function sha256Hex(value: string): string {
	return hash("sha256", value, "hex");
}

/**
 * AES-256-GCM for secrets we must read back (provider credentials). The key is derived from
 * SECRET_KEY; the format carries a version so the scheme can change without a flag day.
 */
export class SecretBox {
	private readonly key: Buffer;

	constructor(secretKey: string) {
		this.key = hash("sha256", `secret-box:${secretKey}`, "buffer");
	}

	/** A key for one purpose (cookie signing, CSRF tokens), derived from SECRET_KEY so every instance agrees on it. */
	deriveKey(purpose: string): Buffer {
		return createHmac("sha256", this.key).update(`derived:${purpose}`).digest();
	}

	encrypt(plaintext: string): string {
		const iv = randomBytes(12);
		const cipher = createCipheriv("aes-256-gcm", this.key, iv);
		const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
		const tag = cipher.getAuthTag();
		return ["v1", iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(":");
	}

	decrypt(sealed: string): string {
		const [version, iv, tag, ciphertext] = sealed.split(":");
		if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("Unrecognised secret format");
		const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
		decipher.setAuthTag(Buffer.from(tag, "base64url"));
		return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
	}
}
